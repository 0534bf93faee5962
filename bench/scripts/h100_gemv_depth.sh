#!/usr/bin/env bash
# Two experiments on gemv at M = 1, one call, kbit-bench in rotation over two builds: base
# (.deps/gpu/kbit-bench, main) and d2 (.deps/gpu/kbit-bench-d2: two k-tiles of weights in flight per
# warp at k = 2, M = 1 on the adjacent-pair table, 12 more registers, no spills, same 128-register
# bound), gemv at k = 2, 3; and arm d2mw (the d2 build with KBIT_GEMV3_MW=1, a temporary switch that
# lets k = 3 take its pair table on multi-wave M = 1 grids too) at k = 3. M = 1, f16, every catalogue
# shape. Env: DEPTH_BUDGET (default 300 s), DEPTH_REPS (default 3).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gemvdepth ${DEPTH_BUDGET:-300}
gpu_info
arm_setup() {
  KERNELS=gemv; B="--M 1 --bits 2,3 --dtypes f16"
  case $1 in
    d2) BIN=.deps/gpu/kbit-bench-d2 ;;
    d2mw) BIN=.deps/gpu/kbit-bench-d2; ENV=KBIT_GEMV3_MW=1; B="--M 1 --bits 3 --dtypes f16" ;;
  esac
}
REPS=${DEPTH_REPS:-3} MIN_LEFT=15 bench_rotation gemvdepth base d2 d2mw
