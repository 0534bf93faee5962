#!/usr/bin/env bash
# Fortieth session, first call, on the H200 (the first kbit record on one; every earlier record is an H100's). No
# build: carries binaries built here for sm_90a and stripped, in .deps/gpu: kbit-bench and kbit-verify of main
# (REC_TAG), and kbit-bench-gp, branch exp/gtcv-persist built with -DKBIT_GTCV_PERSIST=1 (the persistent grouped_tcv
# grid: one wave of CTAs walking (work item, row tile) pairs, the pair table staged once per CTA).
#   1. The record of main: kbit-verify --quick --pdl over automatic and the MoE kernels, then kbit-bench automatic and
#      automatic_pdl over the whole catalogue at M = 1 .. 1024, k = 2 and 4, f16 (each row verified by the bench
#      itself), and bench/scripts/targets.py over it -- as h100_record_s38.sh, on this GPU.
#   2. The gp A/B: kbit-bench grouped_tcv_pdl and automatic_pdl on the MoE projections of Qwen3-Coder-Next and
#      GLM-4.7-Flash, main / gp in rotation (REPS, default 2), M = 1, 2, 4, 8, 12, 16, k = 2..5, f16. gp's rows are
#      verified by its kbit-bench; its kbit-verify, doctests and sanitizers wait for a landing call (the carry limit
#      holds three binaries).
# Move bench/results out for the call. Env: BUDGET (default 480 s), REPS, REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init "$OUT/rec" ${BUDGET:-480}
gpu_info
nvidia-smi --query-gpu=memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv,noheader | tee -a "$W/summary.txt"
verify_run verify-pdl 120 4 "verify --quick --pdl automatic,moe" --quick --pdl --kernels dense.automatic,moe
arm_setup() { B="--M 1,2,4,8,16,32,64,128,256,512,1024 --bits 2,4 --dtypes f16 --markdown $W/report.md --svg-dir $W/svg"; }
REPS=1 MIN_LEFT=60 bench_rotation "${REC_TAG:-main}" record
python3 bench/scripts/targets.py "$W/bench-1-record.json" --markdown "$W/targets.md" >> "$W/summary.txt" 2>&1
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_tcv_pdl,automatic_pdl
  BIN=.deps/gpu/kbit-bench; [ "$1" = gp ] && BIN=.deps/gpu/kbit-bench-gp
  B="--models qwen3-coder-next,glm-4.7-flash --M 1,2,4,8,12,16 --bits 2,3,4,5 --dtypes f16"
}
# bench_rotation numbers its files on from 1 again: the record's bench-1-record.json keeps its name (the arms differ).
MIN_LEFT=30 REPS=${REPS:-2} bench_rotation "${REC_TAG:-main}" main gp
