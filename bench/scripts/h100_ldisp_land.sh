#!/usr/bin/env bash
# Twenty-sixth session: choose_kernel's M > 16 bounds between tcw and dequantize + cuBLAS after the
# dequantize rewrite (kernels/api.cu; measured in bench/results/2026-11-27-h100-ldisp). One call: old
# (HEAD before the change, .deps/old-src.txz) and new built side by side; the dispatch doctests (the new
# prefill-bounds case and the PDL ones); kbit-verify --quick over dense automatic with and without
# --pdl (new); kbit-bench old / new in rotation, 2 reps: automatic and automatic_pdl over the dense
# shapes of all four catalogue models at M = 32, 128, 256, 512 (the bounds that moved), k = 2, 4, f16.
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz and
# .deps/old-src.txz. Env: LL_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/ldland ${LL_BUDGET:-560}
device_build_ab /tmp/ll-old /tmp/ll-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*prefill bounds*,*LinearArgs::pdl*' 150 'dispatch'
verify_run verify-pdl 90 4 "verify --quick --pdl automatic" --quick --pdl --kernels dense.automatic
verify_run verify 90 4 "verify --quick automatic" --quick --kernels dense.automatic
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=automatic,automatic_pdl
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 32,128,256,512 --bits 2,4 --dtypes f16"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation ldisp old new
