#!/usr/bin/env bash
# Thirty-second session: landing check of two CTAs per SM for k = 3's 64-token tcw kernels (kTcwMinBlocks,
# tcw_common.cuh, KBIT_TCW_MINB64 = 0x18; SASS-identical to the m3 arm of bench/results/2026-11-27-h100-occ2;
# the stream-K kernel spills 48 bytes). The cost model then counts two CTAs at k = 3's 64 tokens too and moves
# Qwen3 dense.gate_up and GLM shared_experts.gate_up at M = 192 to 64-token tiles (unmeasured at k = 3; at k = 4
# in -minb64 1.07-1.12x). main (old) and this tree (new) side by side; every kernel GPU doctest; kbit-verify
# --full over dense.tcw at M = 33, 64, 192, --full --pdl at M = 33, 64; memcheck, racecheck and synccheck
# over the random and adversarial dense.tcw shapes at M = 33, 64, 192; then kbit-bench tcw and automatic_pdl
# old / new over dense at M = 33, 64, 128, 192, k = 2, 3 (k = 2 unchanged: the control), one rep each.
# Pack with OLD=main; carry .deps/sys.txz, .deps/old-src.txz. Env: OL_BUDGET (480 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/occ2land" ${OL_BUDGET:-480}
device_build_ab /tmp/ol-old /tmp/ol-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 120
verify_run verify-tcw 90 3 "verify --full dense.tcw M = 33, 64, 192" --full --kernels dense.tcw \
  --filter '/M(33|64|192)/'
verify_run verify-tcw-pdl 60 3 "verify --full --pdl dense.tcw M = 33, 64" --full --pdl --kernels dense.tcw \
  --filter '/M(33|64)/'
verify_sanitize m64 250 90 '(random|adversarial).*/M(33|64|192)/' memcheck racecheck synccheck
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw,automatic_pdl
  BIN=.deps/gpu/kbit-bench; [ "$1" = old ] && BIN=.deps/gpu/kbit-bench-old
  B="--M 33,64,128,192 --bits 2,3 --dtypes f16"
}
MIN_LEFT=20 REPS=1 bench_rotation occ2land old new
rm -rf /tmp/ol-old/src /tmp/ol-old/build/kernels 2>/dev/null; true
