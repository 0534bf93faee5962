#!/usr/bin/env bash
# Landing call of tcv's early PDL launches (tcv_early_launch: the first step's weights before the
# wait on the one-wave grids that are neither cluster nor one-pass plans), its out-of-line split-K
# fixup (tcv_fixup) and the dispatch rules after them, against main. Both builds on the GPU machine
# (pack first with OLD=<main> bash bench/scripts/pack_device_build.sh). Checks: the split-K, tcv, PDL
# and automatic doctests; memcheck over the split-K and PDL doctests; racecheck over the split-K
# ones and the PDL chain; kbit-verify --quick over tcv and automatic, with and without --pdl. Then
# kbit-bench old and new in rotation over Qwen3-Coder-Next, GLM-4.7-Flash, Llama-3-8B and
# Llama-3-70B at M = 1, 2, 4, 8, 16, k = 2, 4: automatic_pdl and tcv_pdl in both arms, gemv_pdl and
# tcw_pdl beside them in the new one (the dispatch rules). Env: TL_BUDGET (default 575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvearlyland ${TL_BUDGET:-575}
device_build_ab /tmp/tlold /tmp/tlnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*split-K*,*tcv*,*LinearArgs::pdl*,*chain of linear*,*automatic*,*with PDL*' 120 'split-K, tcv, pdl, automatic'
doctest_sanitize memcheck '*split-K*,*LinearArgs::pdl*,*chain of linear*' 90
doctest_sanitize racecheck '*split-K*,*chain of linear*' 75
verify_run verify 45 4 "verify --quick dense tcv,automatic" --quick --kernels dense.tcv,dense.automatic
verify_run verify-pdl 45 4 "verify --quick --pdl dense tcv,automatic" --quick --pdl --kernels dense.tcv,dense.automatic
arm_setup() {
  KERNELS=automatic_pdl,tcv_pdl,gemv_pdl,tcw_pdl
  case $1 in old) BIN=.deps/gpu/kbit-bench-old; KERNELS=automatic_pdl,tcv_pdl ;; esac
  B="--M 1,2,4,8,16 --bits 2,4 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-8b llama-3-70b"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation tcvearlyland old new
