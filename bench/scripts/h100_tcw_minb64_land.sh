#!/usr/bin/env bash
# Thirty-second session: landing check of two CTAs per SM for k = 4's 64-token tcw kernels on the pair table
# (kTcwMinBlocks, tcw_common.cuh; SASS-identical to the mb arm of bench/results/2026-11-27-h100-minb64) and of
# the cost model's step at two CTAs per SM (tcw_plan_cost: 1.48 at 64 tokens, k >= 4). main (old) and this
# tree (new) side by side; every kernel GPU doctest; kbit-verify --full over dense.tcw at M = 33, 48, 64, 96,
# 192, with --pdl at M = 33, 64, and --quick --pdl over dense.automatic; memcheck, racecheck and synccheck over
# the random and adversarial dense.tcw shapes at M = 33, 64, 192; then kbit-bench tcw and automatic_pdl old /
# new over dense at M = 33, 64, 96, 128, 192, k = 3, 4, 5 (k = 3 and 5 unchanged: the control), one rep each.
# Pack with OLD=main; carry .deps/sys.txz, .deps/old-src.txz. Env: ML_BUDGET (575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/minb64land" ${ML_BUDGET:-575}
device_build_ab /tmp/ml-old /tmp/ml-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 120
verify_run verify-tcw 90 3 "verify --full dense.tcw M = 33, 48, 64, 96, 192" --full --kernels dense.tcw \
  --filter '/M(33|48|64|96|192)/'
verify_run verify-tcw-pdl 60 3 "verify --full --pdl dense.tcw M = 33, 64" --full --pdl --kernels dense.tcw \
  --filter '/M(33|64)/'
verify_run verify-auto 60 3 "verify --quick --pdl dense.automatic" --quick --pdl --kernels dense.automatic
verify_sanitize m64 330 90 '(random|adversarial).*/M(33|64|192)/' memcheck racecheck synccheck
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw,automatic_pdl
  BIN=.deps/gpu/kbit-bench; [ "$1" = old ] && BIN=.deps/gpu/kbit-bench-old
  B="--M 33,64,96,128,192 --bits 3,4,5 --dtypes f16"
}
MIN_LEFT=20 REPS=1 bench_rotation minb64land old new
rm -rf /tmp/ml-old/src /tmp/ml-old/build/kernels 2>/dev/null; true
