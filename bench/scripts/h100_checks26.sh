#!/usr/bin/env bash
# Twenty-sixth session's closing checks after the dispatch and dequantize changes: this tree built
# alone; every GPU doctest (kbit_tests_kernels), then kbit-verify --quick over every kernel family with
# and without --pdl. Recorded: bench/results/2026-11-27-h100-checks26.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: CK_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/checks26 ${CK_BUDGET:-560}
device_build_new /tmp/ck-build kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 240
verify_run verify 150 6 "verify --quick (all)" --quick
verify_run verify-pdl 150 6 "verify --quick --pdl (all)" --quick --pdl
