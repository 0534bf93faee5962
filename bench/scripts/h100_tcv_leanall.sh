#!/usr/bin/env bash
# The lean step loop (32-bit step bounds against per-lane limits; bench/results/2026-11-27-h100-leanparts,
# arm bounds: grouped k = 4 1.00-1.07x on every MoE row) in every other tcv kernel, two arms built from
# this tree by the experiment knobs of kernels/tcv.cu:
# - allmid (-DKBIT_TCV_FETCH_ALL=2; it ran as -DKBIT_TCV_LEAN_ALL=1): the register prefetch after each step's second mma, as the landed
#   grouped k = 4 kernel;
# - alltop (-DKBIT_TCV_FETCH_ALL=1; it ran as -DKBIT_TCV_LEAN_ALL=1 -DKBIT_TCV_LEAN_ALL_AT=-1, which kept grouped k = 4 on the pair table mid): the prefetch where main issues it, before the step's
#   activation loads.
# sass_prefetch_place.py showed ptxas sinking the prefetch to the loop's end in some kernels of
# each arm (e.g. allmid: grouped k = 3 two tiles 147 -> 42 instructions before the end; alltop: grouped
# k = 5 one tile 108 -> 144, dense k = 4 pair table, split modes, 121 -> 12), so each kernel family
# takes the arm that measures faster, if any.
# One call: main (this tree: kbit-bench, kbit-verify, kbit_tests_kernels), allmid and alltop
# (kbit-bench, kbit-verify) side by side; main's grouped_tcv and MoE doctests and memcheck over the
# grouped_tcv doctests (the landed grouped k = 4 kernel); kbit-verify --quick over tcv and grouped_tcv
# for each arm; kbit-bench main / allmid / alltop in rotation (tcv_pdl, grouped_tcv) over
# Qwen3-Coder-Next, GLM-4.7-Flash and Llama-3-70B at M = 1, 4, 8, 16, k = 2..5, 2 reps.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: LA_BUDGET (585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/leanall ${LA_BUDGET:-585}
device_build_knob_arms /tmp/la allmid=-DKBIT_TCV_FETCH_ALL=2 alltop=-DKBIT_TCV_FETCH_ALL=1 || exit 1
gpu_info
doctest_filter '*grouped_tcv*,*MoE kernels*' 60 'grouped_tcv, MoE kernels'
doctest_sanitize memcheck '*grouped_tcv*' 60
verify_arms 60 tcv,grouped_tcv allmid alltop
arm_setup() {
  KERNELS=tcv_pdl,grouped_tcv
  case $1 in allmid | alltop) BIN=.deps/gpu/kbit-bench-$1 ;; esac
  B="--M 1,4,8,16 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-70b"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=15 REPS=2 bench_rotation leanall main allmid alltop
