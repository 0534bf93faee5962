#!/usr/bin/env bash
# Forty-seventh session, last landing call: kTcvPairs3MaxMBig (kernels/launch.h) -- from 32 M weights the dense k = 3
# tcv keeps its pair table to M = 6 (from -s47k). KBIT_TCV_PAIRS3_MAXM=4 restores the old bound at every size.
# Steps: the whole GPU doctest binary; kbit-verify tcv and automatic on three moved cases (plain and --pdl, f16, bf16);
# memcheck on one; then tcv_pdl, automatic_pdl, automatic at M = 5, 6, 7 on the 32 M+ block shapes, k = 3, arms old /
# new in rotation, two reps (M = 7 stays off the table in both arms: a check of the bound).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s47j ${BUDGET:-150}
gpu_info
gpu_doctest kernels kbit_tests_kernels 120
L70=dense/llama-3-70b.mlp.down/N8192.K28672
L8=dense/llama-3-8b.mlp.gate_up/N28672.K4096
VKERNELS="tcv automatic" verify_cases verify-m6 40 $L70/M5/k3 $L8/M6/k3 dense/glm-4.7-flash.mlp.shared_experts.gate_up/N20480.K2048/M6/k3
sanitize_cases m6 60 memcheck $L8/M6/k3/f16/tcv
shapes_subset "$W/big" llama-3-70b.attn.q_proj llama-3-70b.attn.o_proj llama-3-70b.mlp.down llama-3-70b.mlp.gate_up \
  llama-3-8b.mlp.down llama-3-8b.mlp.gate_up glm-4.7-flash.mlp.shared_experts.gate_up
arm_setup() {
  KERNELS=tcv_pdl,automatic_pdl,automatic
  B="--M 5,6,7 --bits 3 --dtypes f16"
  [ "$1" = old ] && ENV="KBIT_TCV_PAIRS3_MAXM=4"
}
REPS=2 MIN_LEFT=10 bench_rotation s47j old new
