#!/usr/bin/env bash
# Two host-side changes in one same-call A/B (main = OLD against this tree, both built on the GPU
# machine; pack first with OLD=<main> bash bench/scripts/pack_device_build.sh):
# - grouped_tcv's in-CTA K split (kw) doubles only while the doubled grid still fits the resident
#   slots (it doubled while the current grid was below them, up to 2x: 1.6 waves at Qwen3 M = 2);
# - under PDL, tcv's wide cluster grids of narrow rows (Qwen3 o_proj) at M = 3..16 but on tcw's pair
#   table.
# Checks: the PDL dispatch and MoE doctests, memcheck over the MoE ones, kbit-verify --quick over the
# MoE kernels with and without --pdl. Then kbit-bench old / new in rotation over the MoE projections of
# Qwen3-Coder-Next and GLM-4.7-Flash and Qwen3's o_proj, M = 1..16, k = 2..5: automatic, automatic_pdl
# and grouped_tcv. Env: MK_BUDGET (default 560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/moekw ${MK_BUDGET:-560}
device_build_ab /tmp/mkold /tmp/mknew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*with PDL*,*MoE*,*grouped*,*automatic*' 120 'with PDL, MoE, grouped, automatic'
doctest_sanitize memcheck '*MoE kernels*,*grouped_tcv*' 90
verify_run verify 50 4 "verify --quick moe" --quick --kernels grouped_tcv,grouped_gemv,automatic --filter '^moe/'
verify_run verify-pdl 50 4 "verify --quick --pdl moe" --quick --pdl --kernels grouped_tcv,automatic --filter '^moe/'
moe_catalogue "$W" qwen3-coder-next.attn.o_proj
arm_setup() {
  KERNELS=automatic,automatic_pdl,grouped_tcv
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,2,3,4,8,12,16 --bits 2,3,4,5 --dtypes f16"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation moekw old new
