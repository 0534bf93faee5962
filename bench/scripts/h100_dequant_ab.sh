#!/usr/bin/env bash
# Twenty-sixth session: the dequantize kernel rewritten (kernels/dequant.cu: a warp per 16 rows x one
# 64-k tile, codebook byte offsets from shared memory, output staged in shared memory and stored as
# whole 128-byte lines) against main's (one thread per block; bench/results/2026-11-27-h100-laudit had
# dequant_cublas at k = 5 ~2x slower than at k = 2..4 on the large shapes). One call: old (HEAD,
# .deps/old-src.txz) and new built side by side; the dequantize doctest (bit for bit against
# dequantize_ref, fp32 / fp16 / bf16) and compute-sanitizer memcheck over it; kbit-verify --quick over the
# dequant family and dequant_cublas (new); kbit-bench old / new in rotation, 2 reps: dequant_cublas, all four catalogue
# models, M = 128 and 1024, k = 2, 4, 5, f16.
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz and
# .deps/old-src.txz. Env: DQ_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/dqab ${DQ_BUDGET:-560}
device_build_ab /tmp/dq-old /tmp/dq-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*dequantize*' 120 'dequantize'
doctest_sanitize memcheck '*dequantize equals*' 120
verify_run verify 90 4 "verify --quick dequant_cublas, dequant" --quick --kernels dense.dequant_cublas,dequant
arm_setup() {
  KERNELS=dequant_cublas
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 128,1024 --bits 2,4,5 --dtypes f16"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation dequant old new
