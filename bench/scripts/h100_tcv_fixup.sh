#!/usr/bin/env bash
# (The experiment tree of this call is bench/results/2026-11-26-h100-tcvfixup/experiment.diff, never
# committed: it lost on the unsplit grids. Run against main it benches main twice.)
# A/B call of tcv's workspace fixup spread over all 128 threads with its slices' loads in flight
# (slice_sum), compiled only into the kernels launched with split K (tcv_kernel's WS; the unsplit
# launches of the same grids take WS = false), against main (which has gemv's M >= 2 fixup). The
# landing call of the inline form (bench/results/2026-11-26-h100-slicesumland) gained 1.1-1.25x on
# the split grids but cost some unsplit k = 2, 3 grids 0.90-0.95x through their main loops' register
# allocation. Both builds on the GPU machine (pack first with OLD=<main> bash
# bench/scripts/pack_device_build.sh): the split-K, tcv and PDL doctests, memcheck over the split-K
# ones, kbit-verify --quick (with and without --pdl) over tcv and automatic; then kbit-bench old and
# new in rotation over Qwen3-Coder-Next, GLM-4.7-Flash and Llama-3-8B at M = 1, 2, 4, 8, k = 2..5
# (tcv_pdl, automatic_pdl). Env: TF_BUDGET (default 560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvfixup ${TF_BUDGET:-560}
device_build_ab /tmp/tfold /tmp/tfnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*split-K*,*tcv*,*LinearArgs::pdl*,*chain of linear*,*automatic*' 120 'split-K, tcv, pdl, automatic'
doctest_sanitize memcheck '*split-K*,*chain of linear*' 60
verify_run verify 50 4 "verify --quick dense tcv,automatic" --quick --kernels dense.tcv,dense.automatic
verify_run verify-pdl 50 4 "verify --quick --pdl dense tcv,automatic" --quick --pdl --kernels dense.tcv,dense.automatic
arm_setup() {
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,2,4,8 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-8b"
  KERNELS=tcv_pdl,automatic_pdl
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation tcvfixup old new
