#!/usr/bin/env bash
# tcv_tile's step loop without the per-token predicates and zero fills of the activations, on 32-bit
# step bounds: tokens >= M already read token 0 (their mma columns are never stored), so the
# activation loads go unpredicated and only blocks past K read zeros (g_tcv_zeros, by a pointer
# select); the weight and activation bounds are one 32-bit compare each against per-lane limits
# (w_end, a_end) instead of 64-bit products. SASS per warp step (sm_90a): grouped k = 4 one n8 tile
# 267 -> 229, two tiles 280 -> 262; grouped k = 3 256 -> 237; dense tcv 5-16% fewer (e.g. k = 4 pair
# table 278 -> 252); no new spills in any main loop. One call, OLD (.deps/old-src.txz) and this tree
# built side by side: the tcv, MoE, grouped, one-hot and exact doctests, memcheck over the tcv and
# MoE doctests, kbit-verify --quick over tcv, grouped_tcv and automatic with and without --pdl, then
# kbit-bench old / new in rotation (automatic_pdl, tcv_pdl, grouped_tcv) over Qwen3-Coder-Next,
# GLM-4.7-Flash and Llama-3-70B at M = 1, 2, 4, 8, 16, k = 2..5.
# The tree it ran on: main b01606b + bench/results/2026-11-27-h100-tcvlean/first/lean.patch (not landed).
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh. Env: LEAN_BUDGET (default 585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvlean ${LEAN_BUDGET:-585}
device_build_ab /tmp/leanold /tmp/leannew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*tcv*,*MoE*,*grouped*,*one-hot*,*exact*' 120 'tcv, MoE, grouped, one-hot, exact'
doctest_sanitize memcheck '*tcv*,*MoE kernels equal*' 90
verify_run verify 60 4 "verify --quick tcv,grouped_tcv,automatic" --quick --kernels tcv,grouped_tcv,automatic
verify_run verify-pdl 50 4 "verify --quick --pdl tcv,grouped_tcv,automatic" --quick --pdl --kernels tcv,grouped_tcv,automatic
arm_setup() {
  KERNELS=automatic_pdl,tcv_pdl,grouped_tcv
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,2,4,8,16 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-70b"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation tcvlean old new
