#!/usr/bin/env bash
# Thirty-first session, branch tcw-tile, second call: automatic old (main) / new (tcw's token tile by its
# cost model, tcw_choose_tile, and the K >= 5120 prefill bounds that follow from it: tcw at 129..256 from
# 8 M weights, at 257..512 from 10 M, kernels/api.cu). Every kernel GPU doctest (the dispatch doctest
# checks the bounds); kbit-verify --full over dense.automatic at M = 128, 256, 512, with and without
# cuBLAS; then kbit-bench automatic old / new over dense at M = 128, 256, 384, 512, 1024, k = 2, 4, in
# rotation, 2 reps (block TOTALs in each report). Pack with OLD=main; carry .deps/sys.txz and
# .deps/old-src.txz. Env: TA_BUDGET (575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/tileauto" ${TA_BUDGET:-575}
device_build_ab /tmp/ta-old /tmp/ta-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 90
verify_run verify-auto 90 3 "verify --full dense.automatic M = 128, 256, 512" --full --kernels dense.automatic \
  --filter '/M(128|256|512)/'
verify_run verify-auto-nocublas 90 3 "verify --full --no-cublas dense.automatic M = 128, 256, 512" --full \
  --no-cublas --kernels dense.automatic --filter '/M(128|256|512)/'
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=automatic
  BIN=.deps/gpu/kbit-bench; [ "$1" = old ] && BIN=.deps/gpu/kbit-bench-old
  B="--M 128,256,384,512,1024 --bits 2,4 --dtypes f16"
}
MIN_LEFT=20 REPS=2 bench_rotation tileauto old new
rm -rf /tmp/ta-old/src /tmp/ta-old/build/kernels 2>/dev/null; true
