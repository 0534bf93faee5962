#!/usr/bin/env bash
# Prepared in the twenty-first session for the next one (not run yet): the GPU check of what that
# session landed after its device time was spent, and the automatic_pdl A/B of it.
# - The dispatch doctests edited for the rule that sends tcv's one-slice grids in one wave from 32 M
#   weights (Llama-3-70B q/o_proj) to tcv at k = 4, M = 3..8 (`tcv_unsplit_wave`), with memcheck over
#   the PDL ones.
# - kbit-bench automatic_pdl, old (OLD, e.g. 93c0ffe: before the rule) against this tree, over
#   Llama-3-70B and Llama-3-8B at M = 3, 4, 6, 8, k = 2, 4 (bench/results/2026-11-27-h100-tcvwave/second
#   predicts Llama-3-70B q/o_proj at k = 4: 22.83 / 23.42 / 23.80 -> 18.22 / 18.54 / 21.80 us at
#   M = 3 / 4 / 8; k = 2 and Llama-3-8B level), with tcv_pdl beside it in the new arm.
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh. Env: S22_BUDGET (default 420 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/s22first ${S22_BUDGET:-420}
device_build_ab /tmp/s22old /tmp/s22new kbit-bench kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*LinearArgs::pdl*,*with PDL*,*automatic*,*chain of linear*,*split-K*' 150 'pdl, automatic, split-K'
doctest_sanitize memcheck '*LinearArgs::pdl*,*chain of linear*' 120
arm_setup() {
  KERNELS=automatic_pdl,tcv_pdl
  case $1 in old) BIN=.deps/gpu/kbit-bench-old; KERNELS=automatic_pdl ;; esac
  B="--M 3,4,6,8 --bits 2,4 --dtypes f16 --models llama-3-70b llama-3-8b"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation s22first old new
