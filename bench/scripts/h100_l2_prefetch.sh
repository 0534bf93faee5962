#!/usr/bin/env bash
# (The experiment tree of this call is bench/results/2026-11-26-h100-l2prefetch/experiment.diff, never
# committed: the prefetch lost 0.77-0.97x. Run against main it benches main twice.)
# Experiment call of the L2 prefetch (prefetch_l2 in kernels/common.cuh): gemv's register pipeline
# (gemv_tile, kGemvL2Ahead k-tiles) and tcv (tcv_tile, kTcvL2Ahead steps) request a warp's next
# weight tiles into L2 with cp.async.bulk.prefetch.L2, so that the later tiles of a warp hit L2
# instead of each paying a DRAM round trip in series. Both builds on the GPU machine (pack first
# with OLD=<main> bash bench/scripts/pack_device_build.sh): the gemv, tcv, PDL, split-K and MoE
# doctests, memcheck over the gemv/tcv/MoE ones, kbit-verify --quick (with and without --pdl) over
# gemv, tcv, automatic and the MoE kernels; then kbit-bench old and new in rotation: the whole
# catalogue at M = 1, 2, 4, 8, k = 2..5 (gemv_pdl, tcv_pdl, automatic_pdl) and the MoE projections
# at M = 1, 2, 4, 8, k = 2..5 (grouped_gemv, grouped_tcv, automatic_pdl). Env: LP_BUDGET (575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/l2prefetch ${LP_BUDGET:-575}
device_build_ab /tmp/lpold /tmp/lpnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*gemv*,*tcv*,*LinearArgs::pdl*,*MoeArgs::pdl*,*split-K*,*MoE kernels*' 120 'gemv, tcv, pdl, split-K, MoE'
doctest_sanitize memcheck '*gemv*,*tcv*,*MoE kernels*' 90
verify_run verify 50 4 "verify --quick gemv,tcv,automatic,moe" --quick --kernels dense.gemv,dense.tcv,dense.automatic,moe.grouped_gemv,moe.grouped_tcv,moe.automatic
verify_run verify-pdl 50 4 "verify --quick --pdl gemv,tcv,automatic,moe" --quick --pdl --kernels dense.gemv,dense.tcv,dense.automatic,moe.grouped_gemv,moe.grouped_tcv,moe.automatic
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 dense_moe_ab l2prefetch "--M 1,2,4,8 --bits 2,3,4,5 --dtypes f16" \
  gemv_pdl,tcv_pdl,automatic_pdl "--M 1,2,4,8 --bits 2,3,4,5 --dtypes f16" grouped_gemv,grouped_tcv,automatic_pdl
