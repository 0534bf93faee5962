#!/usr/bin/env bash
# Thirty-first session, closing check of main with tcw's token tile choice and its mends (tcw_launch_pdl keeps
# LinearArgs::pdl to M <= 64 whatever tile the plan takes; the tile's grid bound): this tree built alone;
# every kernel GPU doctest; kbit-verify --full --pdl over dense.tcw at M = 65, 128, 256, 512, 1024;
# kbit-verify --quick --pdl over dense.tcw and dense.automatic; memcheck over the random and adversarial tcw
# shapes at M = 65..1024 with --pdl. Pack first; carry .deps/sys.txz. Env: TF_BUDGET (420 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/tilefinal" ${TF_BUDGET:-420}
device_build_new /tmp/tf kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 90
verify_run verify-full-pdl 90 3 "verify --full --pdl dense.tcw M = 65..1024" --full --pdl --kernels dense.tcw \
  --filter '/M(65|128|256|512|1024)/'
verify_run verify-quick-pdl 90 3 "verify --quick --pdl dense.tcw,dense.automatic" --quick --pdl \
  --kernels dense.tcw,dense.automatic
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "${V[@]}" --full --pdl --no-cublas --no-exact \
  --no-rerun --kernels dense.tcw --filter '(random|adversarial).*/M(65|128|256|512|1024)/' > "$W/memcheck-pdl.txt" 2>&1
s "memcheck --pdl tcw rc=$? after $((SECONDS - T0)) s"; tail -2 "$W/memcheck-pdl.txt" | tee -a "$W/summary.txt"
