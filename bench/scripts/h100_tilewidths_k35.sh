#!/usr/bin/env bash
# Thirty-seventh session: tcw's 160- and 224-token tiles at k = 3 and 5, which the thirty-sixth session landed from a
# k = 2, 4 A/B only (bench/results/2026-11-28-h100-tilewidths; tcw_plan_cost prices k = 3 as k = 2 and k = 5 as
# k = 4). Builds side by side: main (kbit-bench) and mid0 (-DKBIT_TCW_TILE160=0 -DKBIT_TCW_TILE224=0: 192 alone,
# main before the thirty-sixth session). Then kbit-bench tcw_pdl, mid0 / main in rotation (REPS, default 2), the
# dense shapes but Llama-3-70B's, M = 160, 224, 288, 320, 416, 448, k = 3, 5. Analysis:
# bench/scripts/tilewidths_classes.py DIR mid0 main. Pack first; carry .deps/sys.txz. Env: BUDGET (420 s), REPS.
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/k35" 420
device_sys || exit 1
CUDA_FLAGS="-DKBIT_TCW_TILE160=0 -DKBIT_TCW_TILE224=0" device_build . /tmp/k35-mid0 8 kbit-bench & pid=$!
device_build . /tmp/k35-main 8 kbit-bench; rc=$?
wait $pid || rc=1
s "builds rc=$rc after $((SECONDS - T0)) s"
[ $rc = 0 ] || { tail -n 20 /tmp/k35-*.log | tee -a "$W/summary.txt"; exit 1; }
mkdir -p .deps/gpu
for a in main mid0; do cp /tmp/k35-$a/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-$a; done
gpu_info
rows_catalogue skip=llama-3-70b
arm_setup() {
  KERNELS=tcw_pdl
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 160,224,288,320,416,448 --bits 3,5 --dtypes f16"
}
MIN_LEFT=20 REPS=${REPS:-2} bench_rotation k35 mid0 main
rm -rf /tmp/k35-*/lib /tmp/k35-*/kernels 2>/dev/null; true
