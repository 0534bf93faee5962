#!/usr/bin/env bash
# Prepared in the twentieth session for the next one (not run yet): the GPU check of what that
# session landed without device time left, and the automatic_pdl A/B of its M = 5..8 rules.
# - The doctests whose expectations changed after its last GPU run: the PDL dispatch rules (tcw keeps
#   M = 3..8 from 32 M weights only at k = 4; tcv's early grids of more than 5 slices at M = 5..8) and
#   the PDL tcv doctest's two new shapes (4096 x 4096 on kTcvWorkspace, 60000 x 256 on kTcvUnsplit),
#   with memcheck over the PDL ones.
# - kbit-bench automatic_pdl, old (OLD, e.g. 445f227: before the M = 5..8 rules) against this tree,
#   over Llama-3-8B and Llama-3-70B at M = 5, 6, 8, k = 2..5 (bench/results/2026-11-26-h100-tcvm8
#   predicts tcv's rows: 1.16-1.19x at k = 2, 1.03-1.07x at k = 3, 0.98-1.05x at k = 5, k = 4 level).
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh. Env: MC_BUDGET (default 420 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/m8check ${MC_BUDGET:-420}
device_build_ab /tmp/mcold /tmp/mcnew kbit-bench kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*LinearArgs::pdl*,*with PDL*,*automatic*,*chain of linear*,*split-K*' 150 'pdl, automatic, split-K'
doctest_sanitize memcheck '*LinearArgs::pdl*,*chain of linear*' 120
arm_setup() {
  KERNELS=automatic_pdl,tcv_pdl,tcw_pdl
  case $1 in old) BIN=.deps/gpu/kbit-bench-old; KERNELS=automatic_pdl ;; esac
  B="--M 5,6,8 --bits 2,3,4,5 --dtypes f16 --models llama-3-8b llama-3-70b"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation m8check old new
