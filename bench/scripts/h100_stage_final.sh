#!/usr/bin/env bash
# The landed build of this change (grouped_tcv: the k = 4 pair table staged by
# stage_pair_table_vec fully unrolled, the k = 2 adjacent pair table up to 4 rows per expert; tcw:
# stage_pair_table_vec unrolled by 4; the dense tcv and grouped_tcw as in main), one call: GPU
# doctests, compute-sanitizer memcheck over the one-hot decode doctests (dense and grouped), the MoE
# equality and MoE PDL doctests, racecheck over the one-hot ones and the MoE equality doctest,
# kbit-verify --quick (grouped_tcv, tcv, tcw, automatic at every k; MoE automatic with --pdl), then
# kbit-bench: `ab` (main's kbit-bench, carried as .deps/gpu/kbit-bench-old, against this build:
# grouped_tcv, tcw, tcv at M = 1..16, k = 2 and 4) and `all` (automatic, automatic_pdl, gemv,
# grouped_tcv at M = 1, 2, 4, k = 2..5: the closing record with the block TOTAL rows). Env:
# FINAL_BUDGET (default 500 s).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/stagefinal ${FINAL_BUDGET:-500}
doctest_checks 120 '*documented W*,*moe_weight_roundings*,*MoE kernels equal*,*MoeArgs::pdl*' 200 '*documented W*,*moe_weight_roundings*,*MoE kernels equal*' 200
verify_run verify 150 9 "verify --quick grouped_tcv,tcv,tcw,automatic" --quick --kernels grouped_tcv,tcv,tcw,automatic
verify_run verify-pdl 100 9 "verify --quick --pdl moe" --quick --pdl --kernels moe
arm_setup() {
  case $1 in
    old|new) B="--M 1,2,4,8,16 --bits 2,4 --dtypes f16"; KERNELS=grouped_tcv,tcw,tcv
             [ "$1" = old ] && BIN=.deps/gpu/kbit-bench-old ;;
    all) B="--M 1,2,4 --bits 2,3,4,5 --dtypes f16"; KERNELS=automatic,automatic_pdl,gemv,grouped_tcv ;;
  esac
}
REPS=1 MIN_LEFT=20 bench_rotation stage-final old new all
