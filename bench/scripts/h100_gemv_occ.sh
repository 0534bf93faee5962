#!/usr/bin/env bash
# gemv at k = 2, M = 1 (the adjacent-pair table, 128 registers at 4 CTAs per SM) with a launch bound
# of 6 or 7 CTAs per SM (80 / 72 registers, no spills; static loop 456 -> 465 instructions per 128
# weights): kbit-bench in rotation over three binaries, base (.deps/gpu/kbit-bench, main) and mb6 /
# mb7 (.deps/gpu/kbit-bench-mb6, -mb7: builds with kGemvMinBlocks at k = 2, M = 1 dense set to 6 / 7),
# gemv at M = 1, k = 2, f16, every catalogue shape. The plan follows the slots (gemv_plan_for), so
# smaller grids may split K differently. Env: OCC_BUDGET (default 300 s), OCC_REPS (default 3).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gemvocc ${OCC_BUDGET:-300}
gpu_info
B="--M 1 --bits 2 --dtypes f16"
arm_setup() { KERNELS=gemv; [ "$1" != base ] && BIN=.deps/gpu/kbit-bench-$1; }
REPS=${OCC_REPS:-3} MIN_LEFT=15 bench_rotation gemvocc base mb6 mb7
