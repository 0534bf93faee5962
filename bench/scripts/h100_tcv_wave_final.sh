#!/usr/bin/env bash
# Final call of tcv's workspace grids cut to one wave (lib/kbit/tcv_sched.h: the cut in the workspace
# branch only, so the cluster and one-pass plans stay main's; unsplit grids of more than 8 steps per
# warp not launched early; the PDL rule for early split grids of K >= 4096 by steps per warp), after
# the two arms calls of bench/results/2026-11-27-h100-tcvwave. Main = OLD against this tree, both
# built on the GPU machine (pack first with OLD=<main> bash bench/scripts/pack_device_build.sh).
# Checks: the tcv, split-K, PDL and automatic doctests; memcheck over the split-K, tcv and PDL
# doctests; racecheck over the split-K doctests and the PDL chain; kbit-verify --quick over tcv and
# automatic, with and without --pdl. Then kbit-bench old / new in rotation: automatic_pdl and
# automatic over Qwen3-Coder-Next, GLM-4.7-Flash, Llama-3-8B and Llama-3-70B at M = 3, 4, 8, 16,
# k = 2..5. Env: WF_BUDGET (default 570 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvwavefinal ${WF_BUDGET:-570}
device_build_ab /tmp/wfold /tmp/wfnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*tcv*,*split-K*,*LinearArgs::pdl*,*chain of linear*,*with PDL*,*automatic*' 100 'tcv, split-K, PDL, automatic'
doctest_sanitize memcheck '*split-K*,*tcv*,*LinearArgs::pdl*,*chain of linear*' 90
doctest_sanitize racecheck '*split-K*,*chain of linear*' 70
verify_run verify 50 3 "verify --quick tcv,automatic" --quick --kernels tcv,automatic
verify_run verify-pdl 50 3 "verify --quick --pdl tcv,automatic" --quick --pdl --kernels tcv,automatic
arm_setup() {
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 3,4,8,16 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-8b llama-3-70b"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation tcvwavefinal old new
