#!/usr/bin/env bash
# Where the lean loop's prefetch goes: after mma 0 or mma 3 of the step, against the table of
# bench/results/2026-11-27-h100-fetchland (kFetchLeanMid after mma 1 where it won, else top or wide).
# Arms, built from this tree by the experiment knobs of kernels/tcv.cu:
# - at0: -DKBIT_TCV_FETCH_ALL=2 -DKBIT_TCV_FETCH_MID_AT=0 (every tcv kernel lean, prefetch after mma 0);
# - at3: -DKBIT_TCV_FETCH_ALL=2 -DKBIT_TCV_FETCH_MID_AT=3.
# sass_prefetch_place.py moves the prefetch per kernel in both directions (e.g. dense k = 4 pair table,
# split modes: after mma 1 12 instructions before the loop's end, after mma 3 138), so each kernel may
# have its own best place; bench/scripts/tcv_fetch_groups.py reads the result per kernel.
# Also the closing checks of the landed table on main (this tree without knobs): every kernel doctest
# (incl. K above 2^31 - 1 refused), racecheck over the tcv split-K doctests.
# One call: main (kbit-bench, kbit-verify, kbit_tests_kernels), at0 and at3 (kbit-bench, kbit-verify)
# side by side; kbit-verify --quick over tcv and grouped_tcv for each arm; kbit-bench main / at0 / at3
# once each (tcv_pdl, grouped_tcv) over Qwen3-Coder-Next, GLM-4.7-Flash and Llama-3-70B at M = 1, 4, 8,
# 16, k = 2..5 (reps of the -leanall arms agreed within 1%).
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: FA_BUDGET (585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/fetchat ${FA_BUDGET:-585}
device_build_knob_arms /tmp/fa at0="-DKBIT_TCV_FETCH_ALL=2 -DKBIT_TCV_FETCH_MID_AT=0" at3="-DKBIT_TCV_FETCH_ALL=2 -DKBIT_TCV_FETCH_MID_AT=3" || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 80
doctest_sanitize racecheck '*cluster and workspace split-K*' 80
verify_arms 60 tcv,grouped_tcv at0 at3
arm_setup() {
  KERNELS=tcv_pdl,grouped_tcv
  case $1 in at0 | at3) BIN=.deps/gpu/kbit-bench-$1 ;; esac
  B="--M 1,4,8,16 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-70b"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=15 REPS=1 bench_rotation fetchat main at0 at3
