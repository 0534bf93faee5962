#!/usr/bin/env bash
# Forty-fifth session, seventh call (main plus, uncommitted, grouped_tcv's 1D item-major grid; built here, carried):
# moe_max_items bounds grouped_tcv's items by the worst routing, and the items past the real count exit after the
# offsets scan; on the 2D grid (items x row tiles) they sat beside the real ones in every row tile's wave (GLM-4.7-
# Flash at 16 tokens: 64 items launched, ~40 real). Item-major they run last.
#   1. the whole GPU doctest binary (item-major is the default: KBIT_GTCV_ITEM_MAJOR=1); memcheck over the MoE exact
#      doctest; kbit-verify over grouped_tcv and automatic at MoE tokens 1..16, plain and --pdl;
#   2. the A/B: grouped_tcv and automatic_pdl on both models' experts at M = 1..16, k = 2 and 4, f16: item-major (im)
#      against the 2D grid (KBIT_GTCV_ITEM_MAJOR=0, arm xy), two reps in rotation.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s45i ${BUDGET:-300}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
doctest_sanitize memcheck '*MoE kernels equal the CPU reference*' 90
verify_run verify-m 90 4 "verify --m 1,2,4,8,12,16 grouped_tcv,automatic" --m 1,2,4,8,12,16 \
  --kernels moe.grouped_tcv,moe.automatic
verify_run verify-m-pdl 90 4 "verify --pdl --m 1,2,4,8,12,16 grouped_tcv,automatic" --pdl --m 1,2,4,8,12,16 \
  --kernels moe.grouped_tcv,moe.automatic
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_tcv,automatic_pdl
  B="--models glm-4.7-flash,qwen3-coder-next --M 1,2,4,8,12,16 --bits 2,4 --dtypes f16"
  [ "$1" = xy ] && ENV="KBIT_GTCV_ITEM_MAJOR=0"
}
REPS=2 MIN_LEFT=10 bench_rotation im im xy
