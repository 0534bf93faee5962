#!/usr/bin/env bash
# The closing record of the sixteenth session (main with the tight MoE grids, the split-K atomic and
# gemv's activation prefetch), one call, built on the GPU machine (lib/device_build.sh; pack first
# with bench/scripts/pack_device_build.sh): the GPU doctests, compute-sanitizer memcheck over the
# gemv, split-K, PDL and MoE doctests and racecheck over the gemv and one-hot doctests, kbit-verify
# --quick over every dense and MoE kernel and --pdl over the MoE kernels; then kbit-bench `all`
# (automatic, automatic_pdl, gemv, gemv_pdl, tcv, tcv_pdl, grouped_tcv at M = 1, 2, 4, k = 2..5:
# the block TOTAL rows and the dispatch audit). Env: REC_BUDGET (default 570 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/records16 ${REC_BUDGET:-570}
device_build_new /tmp/recbuild kbit-bench kbit-verify kbit_tests_kernels kbit_tests_gpu || exit 1
doctest_checks 100 '*gemv*,*split-K*,*pdl*,*MoE kernels equal*,*MoeArgs::pdl*' 100 '*gemv*,*documented W*' 100
verify_run verify 120 14 "verify --quick dense,moe" --quick --kernels dense,moe
verify_run verify-pdl 50 8 "verify --quick --pdl moe" --quick --pdl --kernels moe
arm_setup() { B="--M 1,2,4 --bits 2,3,4,5 --dtypes f16"; KERNELS=automatic,automatic_pdl,gemv,gemv_pdl,tcv,tcv_pdl,grouped_tcv; }
REPS=1 MIN_LEFT=20 bench_rotation s16-record all
