#!/usr/bin/env bash
# Thirty-third session: tcw under LinearArgs::pdl above M = 64. On main tcw launches plainly above M = 64
# whatever its plan, so at M = 96..256 the small shapes pay three plain launches (pre-pass, GEMM, slice sum)
# where cuBLAS pays one (bench/results/2026-11-27-h100-smallncu). This tree (main arm, "new"): every M under
# PDL (KBIT_TCW_PDL_MAXM), and the 128- and 256-token kernels carry the PDL instructions (KBIT_TCW_PDL_BIG:
# first weights before the wait; their SASS changes for plain launches too). Arms: old
# (-DKBIT_TCW_PDL_MAXM=64 -DKBIT_TCW_PDL_BIG=0: main's behaviour) and p64 (-DKBIT_TCW_PDL_BIG=0: only the
# 32- and 64-token kernels under PDL above M = 64, no SASS change).
# Predicted: tcw_pdl and automatic_pdl 1.05-1.25x on the small shapes (Qwen3, GLM) at M = 96..256, ~1.00x
# on the large ones; tcw plain within +-2% (the SASS change only).
# Checks on new: the PDL doctests (slow producer, chains; M = 96, 200 and 128, 256 added), kbit-verify
# --pdl over dense.tcw at M = 96..1024. Bench: tcw, tcw_pdl, automatic_pdl over dense at M = 96, 128, 192,
# 256, 1024, k = 2, 4, f16, one rep per arm in rotation. Pack first; carry .deps/sys.txz. Env: PB_BUDGET.
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/pdlbig" ${PB_BUDGET:-585}
device_build_knob_arms /tmp/pb "old=-DKBIT_TCW_PDL_MAXM=64 -DKBIT_TCW_PDL_BIG=0" "p64=-DKBIT_TCW_PDL_BIG=0" || exit 1
gpu_info
doctest_filter '*pdl*,*PDL*' 150 "PDL doctests, new"
V=(.deps/gpu/kbit-verify-main --shapes "$R/data/shapes.json")
verify_run verify-pdl 70 3 "new verify --pdl dense.tcw M = 96..1024" --pdl --kernels dense.tcw \
  --filter '/M(96|128|192|256|512|1024)/'
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw,tcw_pdl,automatic_pdl
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 96,128,192,256,1024 --bits 2,4 --dtypes f16"
}
MIN_LEFT=20 REPS=1 bench_rotation pdlbig old p64 main
rm -rf /tmp/pb-*/lib /tmp/pb-*/kernels 2>/dev/null; true
