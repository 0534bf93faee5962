#!/usr/bin/env bash
# Final call of grouped_tcv's one-wave K split (with a pair table only) and the PDL rule for tcv's wide
# cluster grids of narrow rows (M = 3..8, 16), after bench/results/2026-11-27-h100-moekw measured both
# in their first form. Main = OLD against this tree, both built on the GPU machine (pack first with
# OLD=<main> bash bench/scripts/pack_device_build.sh). Checks: the PDL, MoE, grouped, automatic,
# split-K and tcv doctests (the sanitizers and kbit-verify: h100_moe_kw_checks.sh, the next call).
# Then kbit-bench old / new in rotation over the MoE projections of
# Qwen3-Coder-Next and GLM-4.7-Flash and Qwen3's o_proj, M = 1..16, k = 2..5: automatic and
# automatic_pdl. Env: MF_BUDGET (default 560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/moekwfinal ${MF_BUDGET:-560}
device_build_ab /tmp/mfold /tmp/mfnew kbit-bench kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*with PDL*,*MoE*,*grouped*,*automatic*,*split-K*,*tcv*,*LinearArgs::pdl*,*chain of linear*' 120 'PDL, MoE, grouped, automatic, split-K, tcv'
moe_catalogue "$W" qwen3-coder-next.attn.o_proj
arm_setup() {
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,2,3,4,8,12,16 --bits 2,3,4,5 --dtypes f16"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation moekwfinal old new
