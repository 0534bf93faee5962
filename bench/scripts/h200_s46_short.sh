#!/usr/bin/env bash
# Forty-sixth session, dispatch call (H200; built here, carried): under live PDL, k <= 3's short rows (K < 1024,
# N < 8192) take tcw's bounds above M = 64 (choose_kernel, kernels/api.cu; KBIT_TCW_SHORT_PDL=0 restores the rule
# before, one binary), since the lone 64-token price moved their tcw plans to 64 tokens (-s46l):
#   1. the whole GPU doctest binary (new: the short-rows choice and tcw exact under PDL on those shapes); kbit-verify
#      --pdl over automatic on the moved cases by name (Qwen3 shared_expert.down, GLM q_b_proj; f16, bf16);
#   2. kbit-bench automatic_pdl, tcw_pdl and dequant_cublas on the two short-row shapes of the catalogue at
#      M = 65..192, k = 2, 3, 4 (k = 4: control), old / new in rotation, two reps.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s46s ${BUDGET:-200}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
S=dense/qwen3-coder-next.mlp.shared_expert.down/N2048.K512
Q=dense/glm-4.7-flash.attn.q_b_proj/N5120.K768
verify_moved 30 $S/M80/k2 $S/M128/k3 $Q/M96/k2 $Q/M160/k3 $Q/M192/k2
shapes_subset "$W/short" qwen3-coder-next.mlp.shared_expert.down glm-4.7-flash.attn.q_b_proj
arm_setup() {
  KERNELS=automatic_pdl,tcw_pdl,dequant_cublas
  B="--M 65,80,96,112,128,144,160,176,192 --bits 2,3,4 --dtypes f16"
  [ "$1" = old ] && ENV="KBIT_TCW_SHORT_PDL=0"
}
REPS=2 MIN_LEFT=10 bench_rotation s46s old new
