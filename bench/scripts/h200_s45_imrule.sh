#!/usr/bin/env bash
# Forty-fifth session, eighth call (main plus, uncommitted, grouped_tcv's item-major grid from 40 routed rows,
# grouped_tcv_item_major_rule, read off the seventh call; built here, carried): the whole GPU doctest binary,
# kbit-verify over grouped_tcv and automatic at MoE tokens 1..16, and the rule against the 2D grid
# (KBIT_GTCV_ITEM_MAJOR=0) in a second run: grouped_tcv and automatic_pdl on both models' experts at M = 1..16, k = 2, 4,
# two reps in rotation.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s45r ${BUDGET:-200}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
verify_run verify-m 90 4 "verify --m 1,2,4,8,12,16 grouped_tcv,automatic" --m 1,2,4,8,12,16 \
  --kernels moe.grouped_tcv,moe.automatic
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_tcv,automatic_pdl
  B="--models glm-4.7-flash,qwen3-coder-next --M 1,2,4,8,12,16 --bits 2,4 --dtypes f16"
  [ "$1" = xy ] && ENV="KBIT_GTCV_ITEM_MAJOR=0"
}
REPS=2 MIN_LEFT=10 bench_rotation imr rule xy
