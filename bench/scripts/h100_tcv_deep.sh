#!/usr/bin/env bash
# tcv and grouped_tcv at NT = 1 (M <= 8) with the weights prefetched two steps ahead instead of one
# (kernels/tcv.cu, kTcvDeep: an experiment, lost and not in main -- bench/results/2026-11-26-h100-tcvdeep;
# 96 registers, 5 CTAs per SM instead of 80 and 6), against main's build,
# one call, both built on the GPU machine (lib/device_build.sh; pack first with OLD=<main>
# bench/scripts/pack_device_build.sh): the GPU doctests, compute-sanitizer memcheck over the tcv,
# one-hot and MoE doctests and racecheck over the one-hot doctests, kbit-verify --quick over tcv and
# grouped_tcv (plain; --pdl on the MoE kernels); then kbit-bench, arm old (main's) and new in
# rotation: the dense catalogue at M = 1, 2, 4, 8, k = 2, 4 (tcv, automatic_pdl) and the MoE
# projections at M = 1, 2, 4, 8, k = 2..5 (grouped_tcv, automatic_pdl); then, with what is left, the
# record of this build (`all`: automatic, automatic_pdl, gemv, tcv, grouped_tcv at M = 1, 2, 4,
# k = 2..5). Env: TD_BUDGET (default 570 s), TD_REPS (default 2).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvdeep ${TD_BUDGET:-570}
device_build_ab /tmp/tdold /tmp/tdnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
doctest_checks 100 '*tcv*,*documented W*,*moe_weight_roundings*,*MoE kernels equal*' 100 '*documented W*,*moe_weight_roundings*' 100
verify_run verify 80 6 "verify --quick tcv,grouped_tcv" --quick --kernels tcv,grouped_tcv
verify_run verify-pdl 40 4 "verify --quick --pdl grouped_tcv" --quick --pdl --kernels grouped_tcv
# The A/B gets the budget left but 100 s; the record runs only with at least 75 s left.
BUDGET=$((BUDGET - 100)) MIN_LEFT=20 REPS=${TD_REPS:-2} dense_moe_ab tcvdeep "--M 1,2,4,8 --bits 2,4 --dtypes f16" \
  tcv,automatic_pdl "--M 1,2,4,8 --bits 2,3,4,5 --dtypes f16" grouped_tcv,automatic_pdl
arm_setup() { unset SHAPES; B="--M 1,2,4 --bits 2,3,4,5 --dtypes f16"; KERNELS=automatic,automatic_pdl,gemv,tcv,grouped_tcv; }
MIN_LEFT=75 REPS=1 bench_rotation tcvdeep all
