#!/usr/bin/env bash
# Thirty-sixth session, second call: the checks of main with tcw's 160- and 224-token tiles on (KBIT_TCW_TILE160 =
# KBIT_TCW_TILE224 = 1 beside 192, landed after bench/results/2026-11-28-h100-tilewidths), and the data for the
# dispatch bounds at M = 160..576 with them. This tree built alone; every kernel GPU doctest (with "tcw's 160-, 192-
# and 224-token tiles equal the CPU reference bit for bit in every plan form"); compute-sanitizer memcheck and
# synccheck over that doctest (its three tiles); kbit-verify --full --pdl over dense.tcw and dense.automatic at
# M = 160, 224, 288, 320, 416, 448 (--m); then kbit-bench tcw_pdl and dequant_cublas in the same run over the
# dense catalogue shapes below 40 M weights (where automatic may give M = 129..576 to either), M = 160..576,
# k = 2, 4 (BITS). Racecheck runs in the next call. Pack first; carry .deps/sys.txz. Env: WL_BUDGET (430 s), BITS.
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/widthsland" ${WL_BUDGET:-430}
device_build_new /tmp/wl kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 90
for tool in memcheck synccheck; do doctest_sanitize $tool "*token tiles*" 60; done
verify_run verify-full-pdl 90 3 "verify --full --pdl dense.tcw,dense.automatic M = 160, 224, 288, 320, 416, 448" \
  --full --pdl --kernels dense.tcw,dense.automatic --m 160,224,288,320,416,448
rows_catalogue max=40e6
arm_setup() {
  KERNELS=tcw_pdl,dequant_cublas
  B="--M 160,192,224,256,288,320,384,416,448,512,576 --bits ${BITS:-2,4} --dtypes f16"
}
MIN_LEFT=20 REPS=1 bench_rotation widthsland main
rm -rf /tmp/wl/lib /tmp/wl/kernels 2>/dev/null; true
