#!/usr/bin/env bash
# The lean step loop in grouped tcv at k = 4 only (LEAN in tcv_tile: no per-token predicates or
# zero fills of the activations, 32-bit step bounds), with the register prefetch of the next step
# issued after the second mma, where ptxas keeps it mid-loop: SASS per step 267 -> 238 (one n8
# tile) and 280 -> 259 (two), the prefetch's last load 115 and 99 instructions before the loop's end
# (main: 128, 103; the lean loop of bench/results/2026-11-27-h100-tcvlean/first, which lost, had 13).
# The other 120 tcv kernels' SASS is main's. One short call (the session's last device time):
# old (main, .deps/old-src.txz) and this tree built side by side; the grouped_tcv and MoE doctests,
# memcheck over the grouped_tcv doctests, kbit-verify --quick over grouped_tcv; then kbit-bench old /
# new in rotation (grouped_tcv, automatic_pdl) over the MoE projections of Qwen3-Coder-Next and
# GLM-4.7-Flash at M = 1, 2, 4, 8, 16, k = 4, 2 reps. Env: L4_BUDGET (default 270 s).
# The tree it ran on: main e3ff596 + bench/results/2026-11-27-h100-tcvlean/fourth/lean4.patch (lost, not landed).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvlean4 ${L4_BUDGET:-270}
device_build_ab /tmp/l4old /tmp/l4new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*grouped_tcv*,*MoE kernels*' 40 'grouped_tcv, MoE kernels'
doctest_sanitize memcheck '*grouped_tcv*' 40
verify_run verify 25 4 "verify --quick grouped_tcv" --quick --kernels grouped_tcv
moe_catalogue "$W/cat"
arm_setup() {
  KERNELS=grouped_tcv,automatic_pdl
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,2,4,8,16 --bits 4 --dtypes f16 --models qwen3-coder-next glm-4.7-flash"
}
BUDGET=$((BUDGET - 5)) MIN_LEFT=8 REPS=2 bench_rotation tcvlean4 old new
