#!/usr/bin/env bash
# Thirty-first session, branch tcw-tile, closing check: this tree built alone; compute-sanitizer memcheck,
# racecheck and synccheck over kbit-verify --full's random and adversarial dense.tcw shapes at M = 65, 128,
# 256, 512, 1024 (without cuBLAS, the exact-mode launch and the rerun), where tcw's token tile choice
# (tcw_choose_tile) may take 64- or 128-token tiles; then the tcw doctests under racecheck. Pack first;
# carry .deps/sys.txz. Env: TS_BUDGET (500 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/tilesan" ${TS_BUDGET:-500}
device_build_new /tmp/ts kbit-verify kbit_tests_kernels || exit 1
gpu_info
verify_sanitize tiles 120 150 '(random|adversarial).*/M(65|128|256|512|1024)/' memcheck racecheck synccheck
doctest_sanitize racecheck '*tcw*' 200 tcw-doctests
