#!/usr/bin/env bash
# Forty-sixth session, second call (H200; built here, carried): two audits of H100-fitted rules on the H200, by
# run-time knobs (default off, one binary):
#   1. tcw's token tile (tcw_choose_tile, fitted on the H100): KBIT_TCW_MN=64 / 128 / 256 forces the tile on every
#      plan; kbit-bench tcw_pdl over the dense catalogue at M = 96, 128, 192, 256, k = 2 and 4, f16, against main in
#      rotation, one rep (the first call's -s46a has two reps of main);
#   2. grouped_tcv's in-CTA K split (grouped_tcv_kw, fitted on the H100, bench/results/2026-11-27-h100-moekw):
#      KBIT_GTCV_KW=1 / 2 / 4; kbit-bench grouped_tcv_pdl and automatic_pdl on the MoE projections of Qwen3-Coder-Next
#      and GLM-4.7-Flash at M = 1, 2, 4, 8, 16, k = 2, 3, 4, f16, against main, two reps in rotation;
#   first kbit-verify over grouped_tcv at M = 2, 8, 16 with kw forced to 4, and over tcw at M = 96, 192 at 64 tokens.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s46b ${BUDGET:-480}
gpu_info
VENV="KBIT_GTCV_KW=4" verify_run verify-kw4 60 2 "verify grouped_tcv --m 2,8,16, KBIT_GTCV_KW=4" \
  --m 2,8,16 --kernels moe.grouped_tcv
VENV="KBIT_TCW_MN=64" verify_run verify-mn64 60 2 "verify tcw --m 96,192, KBIT_TCW_MN=64" --m 96,192 --kernels dense.tcw
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_tcv_pdl,automatic_pdl
  B="--models glm-4.7-flash,qwen3-coder-next --M 1,2,4,8,16 --bits 2,3,4 --dtypes f16"
  [ "$1" = main ] || ENV="KBIT_GTCV_KW=${1#kw}"
}
all=$BUDGET; BUDGET=$(( all - 240 ))  # the tcw arms get the last 240 s
REPS=2 MIN_LEFT=20 bench_rotation s46kw main kw1 kw2 kw4
BUDGET=$all
SHAPES="$R/data/shapes.json"
arm_setup() {
  KERNELS=tcw_pdl
  B="--M 96,128,192,256 --bits 2,4 --dtypes f16"
  [ "$1" = tmain ] || ENV="KBIT_TCW_MN=${1#mn}"
}
REPS=1 MIN_LEFT=20 bench_rotation s46mn tmain mn64 mn128 mn256
