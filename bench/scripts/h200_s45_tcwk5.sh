#!/usr/bin/env bash
# Forty-fifth session, fifth call (main after the review's mends, built here, carried; plus a variant with
# -DKBIT_TCW_MINB64=0x38: tcw.cu recompiled, libkbit_gpu.a's member replaced, kbit-bench / kbit-verify relinked):
#   1. the whole GPU doctest binary (the one-hot doctest rewritten for uneven experts: an expert of 8 rows at mean 3
#      on the k = 2 pair table); memcheck over it;
#   2. a screen, not a landing: tcw's dense 64-token kernels at two CTAs per SM for k = 5 too (lost 0.68-0.95x on the
#      H100 with 60-88 bytes spilled; grouped_tcw's k = 5 won 1.06x on the H200 with 56): kbit-verify-t5 over dense tcw
#      at M = 40, 64, k = 5; then tcw and automatic on the dense catalogue at M = 40, 64, k = 5, f16, main / t5 in
#      rotation, two reps.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s45t ${BUDGET:-330}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
doctest_sanitize memcheck "*moe_weight_roundings names*" 90
V=(.deps/gpu/kbit-verify-t5 --shapes "$R/data/shapes.json")
verify_run verify-t5 90 4 "verify (t5 variant) --m 40,64 dense.tcw k5" --m 40,64 --kernels dense.tcw,dense.automatic \
  --filter /k5/
dense_catalogue "$W/cat"
arm_setup() {
  KERNELS=tcw,automatic
  B="--M 40,64 --bits 5 --dtypes f16"
  [ "$1" = t5 ] && BIN=.deps/gpu/kbit-bench-t5
}
REPS=2 MIN_LEFT=10 bench_rotation t5 main t5
