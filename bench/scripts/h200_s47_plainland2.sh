#!/usr/bin/env bash
# Forty-seventh session, last landing call: the plain-launch rule at M = 9..16 (kernels/api.cu, choose_kernel: tcv below
# 32 M weights at k <= 3, at k = 4, 5 below 12 M to M = 12, k = 5 on 12-32 M to M = 10; from -s47m/-s47n's audit), with
# tcw_mid_plain's M = 3..8 part (-s47n) behind the same knob (KBIT_TCW_MID_PLAIN=1 restores both).
# Steps: the whole GPU doctest binary; kbit-verify automatic on three moved cases (plain and --pdl, f16, bf16); memcheck
# on one of them launched plainly; then automatic launched plainly, old / new in rotation, two reps, on the 13 shapes
# the audit saw move, M = 9, 10, 12, 14, 16, k = 2..5. Read with bench/scripts/ab_dense.py DIR old new automatic.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s47q ${BUDGET:-200}
gpu_info
gpu_doctest kernels kbit_tests_kernels 120
VKERNELS="automatic" verify_cases verify-plain 30 dense/llama-3-8b.attn.qkv_proj/N6144.K4096/M10/k3 \
  dense/qwen3-coder-next.mlp.dense.down/N2048.K5120/M16/k2 dense/llama-3-70b.attn.k_proj/N1024.K8192/M12/k5
sanitize_cases plain 60 memcheck dense/llama-3-8b.attn.qkv_proj/N6144.K4096/M10/k3/f16/automatic
shapes_subset "$W/moved" glm-4.7-flash.attn.o_proj glm-4.7-flash.mlp.shared_experts.down llama-3-70b.attn.k_proj \
  llama-3-70b.attn.v_proj llama-3-8b.attn.k_proj llama-3-8b.attn.o_proj llama-3-8b.attn.q_proj llama-3-8b.attn.qkv_proj \
  llama-3-8b.attn.v_proj qwen3-coder-next.attn.o_proj qwen3-coder-next.linear_attn.in_proj_qkvz \
  qwen3-coder-next.linear_attn.out_proj qwen3-coder-next.mlp.dense.down
arm_setup() {
  B="--M 9,10,12,14,16 --bits 2,3,4,5 --dtypes f16 --non-block"
  KERNELS=automatic
  [ "$1" = old ] && ENV="KBIT_TCW_MID_PLAIN=1"
}
REPS=2 MIN_LEFT=10 bench_rotation s47q old new
