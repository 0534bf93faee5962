#!/usr/bin/env bash
# Final call of tcv's early PDL launches after the landing call (bench/results/2026-11-26-h100-
# tcvearly, land/): the dispatch rule narrowed to rows of K >= 4096 and, from M = 5, to early grids
# of at most 5 slices. Both builds on the GPU machine (pack first with OLD=<main> bash
# bench/scripts/pack_device_build.sh). Checks: the format doctests and the split-K, tcv, PDL and
# automatic doctests; memcheck over the split-K and PDL doctests; racecheck over the split-K ones and
# the PDL chain; kbit-verify --quick over every dense kernel, with and without --pdl. Then kbit-bench
# old and new in rotation, automatic_pdl and tcv_pdl, over Qwen3-Coder-Next, GLM-4.7-Flash and
# Llama-3-8B at M = 1, 2, 4, 8, 16, k = 2..5. Env: TF_BUDGET (default 580 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvearlyfinal ${TF_BUDGET:-580}
device_build_ab /tmp/tfold /tmp/tfnew kbit-bench kbit-verify kbit_tests_kernels kbit_tests_gpu || exit 1
gpu_info
gpu_doctest format kbit_tests_gpu 30
doctest_filter '*split-K*,*tcv*,*LinearArgs::pdl*,*chain of linear*,*automatic*,*with PDL*' 120 'split-K, tcv, pdl, automatic'
doctest_sanitize memcheck '*split-K*,*LinearArgs::pdl*,*chain of linear*' 90
doctest_sanitize racecheck '*split-K*,*chain of linear*' 75
verify_run verify 60 4 "verify --quick dense" --quick --kernels dense
verify_run verify-pdl 60 4 "verify --quick --pdl dense gemv,tcv,tcw,automatic" --quick --pdl \
  --kernels dense.gemv,dense.tcv,dense.tcw,dense.automatic
arm_setup() {
  KERNELS=automatic_pdl,tcv_pdl
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,2,4,8,16 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-8b"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation tcvearlyfinal old new
