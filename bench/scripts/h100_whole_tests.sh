#!/usr/bin/env bash
# Thirtieth session, after a review of the whole-tile runs: the two doctests it asked for, on the GPU.
# "whole-tile runs" now also forces runs that cross from one token tile into the next after more steps
# than the stages hold ({384, 2048} at M = 257, {392, 2048} at M = 600); "plan takes whole-tile runs"
# checks that tcw_plan picks them at k >= 4 on >= 16 steps only. One build (kbit_tests_kernels), both
# doctests, then memcheck, racecheck and synccheck over the first.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: WT_BUDGET (420 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/wholetests" ${WT_BUDGET:-420}
device_build_new /tmp/wt kbit_tests_kernels || exit 1
gpu_info
doctest_filter "*whole-tile*" 120 "whole-tile runs, plan"
for tool in memcheck racecheck synccheck; do
  [ "$(left)" -gt 100 ] || { s "$tool skipped: $(left) s left"; continue; }
  doctest_sanitize $tool "*whole-tile runs on the stream-K*" 200
done
