#!/usr/bin/env bash
# Forty-fifth session, third call (main fc78f03 plus, uncommitted, grouped_tcv's k = 2 pair table chosen by the mean
# rows per active expert, grouped_tcv_rows; built here, carried):
#   1. the whole GPU doctest binary (k = 5's dispatch doctest, the one-hot doctest's hint case); memcheck over the
#      one-hot and MoE exact doctests;
#   2. kbit-verify over grouped_tcv and automatic at MoE tokens 8, 12, 16 plain and --pdl (k = 2's moved cases), and
#      over automatic at k = 5, tokens 96 and 320 (k = 5's dispatch from 6 mean rows);
#   3. the A/B: grouped_tcv and automatic_pdl at k = 2, M = 8, 12, 16 on both models' experts: the table by the mean
#      (main) against by the hint (KBIT_GTCV_NT_HINT=1, which also restores the hint's item sizing), two reps;
#   4. k = 2's grouped_tcv / grouped_tcw crossover on the H200 (threshold 8 mean rows, set on the H100): GLM experts at
#      M = 64..128 (4-8 mean rows), Qwen3 experts at M = 256, 320, 400 (5, 7, 8), two reps.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s45k ${BUDGET:-360}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
doctest_sanitize memcheck '*moe_weight_roundings names*,*MoE kernels equal the CPU reference*' 150
verify_run verify-m 90 4 "verify --m 8,12,16 grouped_tcv,automatic" --m 8,12,16 --kernels moe.grouped_tcv,moe.automatic
verify_run verify-m-pdl 90 4 "verify --pdl --m 8,12,16 grouped_tcv,automatic" --pdl --m 8,12,16 \
  --kernels moe.grouped_tcv,moe.automatic
verify_run verify-k5 90 4 "verify --m 96,320 automatic k5" --m 96,320 --kernels moe.automatic --filter /k5/
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_tcv,automatic_pdl
  B="--models glm-4.7-flash,qwen3-coder-next --M 8,12,16 --bits 2 --dtypes f16"
  [ "$1" = hint ] && ENV="KBIT_GTCV_NT_HINT=1"
}
REPS=2 MIN_LEFT=60 bench_rotation k2t mean hint
arm_setup() {
  KERNELS=grouped_tcv,grouped_tcw,automatic
  B="--models glm-4.7-flash,qwen3-coder-next --M 64,80,96,112,128,256,320,400 --bits 2 --dtypes f16"
}
REPS=2 MIN_LEFT=10 bench_rotation k2x cross
