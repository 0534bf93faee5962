#!/usr/bin/env bash
# Thirty-third session: landing check of tcw under LinearArgs::pdl above M = 64 (KBIT_TCW_PDL_MAXM, KBIT_TCW_PDL_BIG,
# tcw_common.cuh; the main arm of bench/results/2026-11-27-h100-pdlbig) and of choose_kernel's PDL rule that moves
# M = 65..256 from dequant_cublas to tcw (api.cu, tcw_pdl_above64). main (old) and this tree (new) side by side.
# Checks (new): every kernel GPU doctest; kbit-verify --full --pdl over dense.tcw at M = 65, 128, 256, 512, 1024;
# --quick --pdl over dense.automatic; memcheck and racecheck of kbit-verify --pdl over tcw's random and
# adversarial shapes at M = 65, 128, 256. Bench: automatic_pdl and tcw_pdl old / new over dense at M = 80, 96,
# 128, 160, 192, 224, 256, k = 2..5, f16, one rep each.
# Predicted: automatic_pdl 1.05-1.15x geomean per (M, k), rows that move from dequant_cublas 1.05-1.35x; tcw_pdl
# as in -pdlbig (1.09-1.16x). Pack with OLD=main; carry .deps/sys.txz, .deps/old-src.txz. Env: PL_BUDGET (585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/pdlland" ${PL_BUDGET:-585}
device_build_ab /tmp/pl-old /tmp/pl-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 150
verify_run verify-tcw-pdl 60 3 "verify --full --pdl dense.tcw M = 65, 128, 256, 512, 1024" --full --pdl \
  --kernels dense.tcw --filter '/M(65|128|256|512|1024)/'
verify_run verify-auto 60 3 "verify --quick --pdl dense.automatic" --quick --pdl --kernels dense.automatic
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 "${V[@]}" --full --pdl --no-cublas --no-exact \
    --no-rerun --kernels dense.tcw --filter '(random|adversarial).*/M(65|128|256)/' > "$W/$tool-pdl.txt" 2>&1
  s "$tool --pdl tcw M = 65, 128, 256 rc=$? after $((SECONDS - T0)) s"; tail -2 "$W/$tool-pdl.txt" | tee -a "$W/summary.txt"
done
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=automatic_pdl,tcw_pdl
  BIN=.deps/gpu/kbit-bench; [ "$1" = old ] && BIN=.deps/gpu/kbit-bench-old
  B="--M 80,96,128,160,192,224,256 --bits 2,3,4,5 --dtypes f16"
}
MIN_LEFT=20 REPS=1 bench_rotation pdlland old new
rm -rf /tmp/pl-old/src /tmp/pl-old/build/kernels 2>/dev/null; true
