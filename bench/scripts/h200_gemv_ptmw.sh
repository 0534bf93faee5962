#!/usr/bin/env bash
# Fortieth session (branch exp/gemv-pt-multiwave): gemv's k = 4 pair table on the multi-wave grids at M = 1, again on
# the H200. On the H100 it lost on the one such catalogue shape, Llama-3-70B gate_up (896 CTAs on 528 slots; 93.8 ->
# 99.7 us, bench/results/2026-11-26-h100-gemvpairs), so launch_dense keeps it off there; on the H200 the float-codebook
# loop it runs instead is issue-bound at 5.38 lane-instructions per weight (-h200-final-s40), against 4.67 for the
# pair-table loop by SASS. No build: carries .deps/gpu/kbit-bench (main) and .deps/gpu/kbit-bench-pt (this branch built
# with -DKBIT_GEMV_PT_MULTIWAVE=1), built here for sm_90a and stripped. kbit-bench gemv_pdl and automatic_pdl on
# Llama-3-70B and Llama-3-8B (the latter's grids are one wave: a control), M = 1, k = 4, f16 and bf16, main / pt in
# rotation, three reps. Env: BUDGET (default 150 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init "$OUT/ptmw" ${BUDGET:-150}
gpu_info
arm_setup() {
  KERNELS=gemv_pdl,automatic_pdl
  [ "$1" = pt ] && BIN=.deps/gpu/kbit-bench-pt
  B="--models llama-3-70b,llama-3-8b --M 1 --bits 4 --dtypes f16,bf16"
}
MIN_LEFT=10 REPS=3 bench_rotation "${REC_TAG:-main}" main pt
