#!/usr/bin/env bash
# The closing record of the seventeenth session (gemv's and tcw's weights before the PDL wait, gemv's
# small PDL grids, the PDL dispatch after them), one call, built on the GPU machine (pack first with
# bash bench/scripts/pack_device_build.sh): the GPU doctests, compute-sanitizer memcheck over the
# gemv, split-K, PDL and MoE doctests and racecheck over the gemv doctests and the PDL chain,
# kbit-verify --quick over every dense and MoE kernel, and with --pdl over gemv, tcv, tcw, automatic
# and the MoE kernels; then kbit-bench `all` (automatic, automatic_pdl, gemv, gemv_pdl, tcv, tcv_pdl,
# tcw_pdl, grouped_tcv at M = 1, 2, 4, k = 2..5: the block TOTAL rows and the dispatch audit).
# Env: REC_BUDGET (default 585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/records17 ${REC_BUDGET:-585}
device_build_new /tmp/recbuild kbit-bench kbit-verify kbit_tests_kernels kbit_tests_gpu || exit 1
doctest_checks 100 '*gemv*,*split-K*,*pdl*,*MoE kernels equal*,*MoeArgs::pdl*' 100 '*gemv*,*chain of linear*' 90
verify_run verify 100 16 "verify --quick dense,moe" --quick --kernels dense,moe
verify_run verify-pdl 70 10 "verify --quick --pdl gemv,tcv,tcw,automatic,moe" --quick --pdl --kernels gemv,tcv,tcw,automatic,moe
arm_setup() { B="--M 1,2,4 --bits 2,3,4,5 --dtypes f16"; KERNELS=automatic,automatic_pdl,gemv,gemv_pdl,tcv,tcv_pdl,tcw_pdl,grouped_tcv; }
REPS=1 MIN_LEFT=20 bench_rotation s17-record all
