#!/usr/bin/env bash
# Thirty-fifth session, third call: the checks of main with the 192-token tile on (KBIT_TCW_TILE192 = 1, landed
# after bench/results/2026-11-28-h100-tile192). This tree built alone; every kernel GPU doctest (with "tcw's
# 192-token tile equals the CPU reference bit for bit in every plan form": tcw_force_tile(192) under the per-tile,
# stream-K, whole-run and cluster plans); compute-sanitizer memcheck, racecheck and synccheck over that doctest;
# kbit-verify --quick --pdl over dense and MoE, and --full --pdl over dense.tcw and dense.automatic at M = 160,
# 288, 576 (--m); then, with what time is left, kbit-bench automatic_pdl over the block shapes at M = 160, 288,
# 384, 576, k = 4 (the block TOTALs). Pack first; carry .deps/sys.txz. Env: TL_BUDGET (440 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/tile192land" ${TL_BUDGET:-440}
device_build_new /tmp/tl kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 90
for tool in memcheck racecheck synccheck; do
  [ "$(left)" -gt 150 ] || { s "$tool skipped: $(left) s left"; continue; }
  doctest_sanitize $tool "*192-token*" 60
done
verify_run verify-quick-pdl 100 3 "verify --quick --pdl dense,moe" --quick --pdl --kernels dense,moe
verify_run verify-full-pdl 60 3 "verify --full --pdl dense.tcw,dense.automatic M = 160, 288, 576" --full --pdl \
  --kernels dense.tcw,dense.automatic --m 160,288,576
arm_setup() {
  KERNELS=automatic_pdl
  B="--M 160,288,384,576 --bits 4 --dtypes f16"
}
MIN_LEFT=20 REPS=1 bench_rotation tile192land main
rm -rf /tmp/tl/lib /tmp/tl/kernels 2>/dev/null; true
