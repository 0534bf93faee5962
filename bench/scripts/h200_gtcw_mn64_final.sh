#!/usr/bin/env bash
# Forty-fourth session, last call: main with grouped_tcw's 64-token tile at k = 3, 4 and its refinement from the landing
# call (k = 3 keeps the 32-token tile to 8 mean rows). Built here, carried:
#   1. the whole GPU doctest binary (the tile rule's expectations); kbit-verify --m 128,256 over grouped_tcw, automatic;
#   2. the MoE part of the targets record: kbit-bench automatic and automatic_pdl over the MoE projections, M = 1 ..
#      1024, k = 2 and 4, f16, then bench/scripts/targets.py;
#   3. the grouped_tcv / grouped_tcw crossover at 4-10 mean rows (automatic takes grouped_tcw from 8): both kernels on
#      Qwen3-Coder-Next at M = 160, 256, 320 and GLM-4.7-Flash at M = 64, 80, 96, k = 3, 4, f16, two reps.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/g64f ${BUDGET:-400}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
verify_run verify-m 120 4 "verify --m 128,256 grouped_tcw,automatic" --m 128,256 --kernels moe.grouped_tcw,moe.automatic
moe_catalogue "$W/moe"
arm_setup() { B="--M 1,2,4,8,16,32,64,128,256,512,1024 --bits 2,4 --dtypes f16 --markdown $W/report.md"; }
RUN_MAX_S=200 REPS=1 MIN_LEFT=60 bench_rotation main moe-record
python3 bench/scripts/targets.py "$W/bench-1-moe-record.json" --markdown "$W/targets.md" >> "$W/summary.txt" 2>&1
arm_setup() {
  KERNELS=grouped_tcw,grouped_tcv
  case $1 in
    q) B="--models qwen3-coder-next --M 160,256,320 --bits 3,4 --dtypes f16" ;;
    g) B="--models glm-4.7-flash --M 64,80,96 --bits 3,4 --dtypes f16" ;;
  esac
}
REPS=2 MIN_LEFT=10 bench_rotation cross q g
