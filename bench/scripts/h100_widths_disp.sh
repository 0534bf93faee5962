#!/usr/bin/env bash
# Thirty-sixth session, third call: automatic's PDL rules after tcw's 160- and 224-token tiles (kernels/api.cu, from
# bench/results/2026-11-28-h100-widthsland: tcw from 8 M weights at k <= 4 at M = 129..320 on rows of K >= 2048 and
# N >= 4096, at 257..448 on rows of K >= 4096; from 4 M at 513..576 on rows of K >= 4096 and N <= 2048). Old
# (.deps/old-src.txz: main before the rules) and this tree built side by side; every kernel GPU doctest (the
# dispatch tests changed); kbit-verify --full --pdl over dense.automatic at M = 256, 288, 320, 416, 540, 576;
# compute-sanitizer racecheck over the token-tile doctest at 160 and 224 tokens (KBIT_TEST_TCW_TILES; memcheck and
# synccheck ran in -widthsland); then kbit-bench automatic_pdl old / new over the dense shapes below 40 M weights at
# M = 256, 288, 320, 416, 540, 576 (540: off the measured grid), k = 2, 3, 4, and the new build's block TOTALs
# (automatic_pdl, every catalogue shape, M = 288, 384, 576, k = 4). Pack with OLD=REV first; carry .deps/sys.txz
# and .deps/old-src.txz. Env: WD_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/widthsdisp" ${WD_BUDGET:-560}
device_build_ab /tmp/wd-old /tmp/wd-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 90
verify_run verify-full-pdl 60 3 "verify --full --pdl dense.automatic M = 256, 288, 320, 416, 540, 576" \
  --full --pdl --kernels dense.automatic --m 256,288,320,416,540,576
KBIT_TEST_TCW_TILES=160,224 doctest_sanitize racecheck "*token tiles*" 150 "(160, 224 tokens)"
rows_catalogue max=40e6
arm_setup() {
  KERNELS=automatic_pdl
  BIN=.deps/gpu/kbit-bench; [ "$1" = old ] && BIN=.deps/gpu/kbit-bench-old
  B="--M 256,288,320,416,540,576 --bits 2,3,4 --dtypes f16"
}
MIN_LEFT=60 REPS=1 bench_rotation widthsdisp old new
arm_setup() {
  KERNELS=automatic_pdl
  B="--M 288,384,576 --bits 4 --dtypes f16"
}
SHAPES= MIN_LEFT=15 REPS=1 bench_rotation widthsdisp blocks
rm -rf /tmp/wd-*/lib /tmp/wd-*/kernels /tmp/wd-old/src 2>/dev/null; true
