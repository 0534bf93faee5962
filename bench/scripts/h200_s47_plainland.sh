#!/usr/bin/env bash
# Forty-seventh session: landing call for tcw_mid_plain (kernels/api.cu) -- launched plainly, M = 3..8 on 12-32 M
# weights runs tcv (the tcw rule stands under PDL; KBIT_TCW_MID_PLAIN=1 restores it), from -s47x -- and an audit of
# plain launches at M = 3..16 over the whole dense catalogue (non-block shapes too): tcv, tcw and automatic.
# Steps: the whole GPU doctest binary; kbit-verify automatic on three moved cases (plain and --pdl, f16, bf16); then
# kbit-bench, arms old (KBIT_TCW_MID_PLAIN=1: automatic only) / new (tcv, tcw, automatic) in rotation, two reps.
# Read with bench/scripts/ab_dense.py DIR old new automatic, and per row tcv against tcw in the new arm.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s47m ${BUDGET:-300}
gpu_info
gpu_doctest kernels kbit_tests_kernels 120
VKERNELS="automatic" verify_cases verify-plain 30 dense/llama-3-8b.attn.q_proj/N4096.K4096/M3/k2 \
  dense/llama-3-8b.attn.qkv_proj/N6144.K4096/M8/k5 dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240/M5/k3
dense_catalogue "$W/dense"
arm_setup() {
  B="--M 3,4,6,8,10,12,14,16 --bits 2,3,4,5 --dtypes f16 --non-block"
  KERNELS=tcv,tcw,automatic
  if [ "$1" = old ]; then KERNELS=automatic; ENV="KBIT_TCW_MID_PLAIN=1"; fi
}
REPS=2 MIN_LEFT=10 bench_rotation s47m old new
