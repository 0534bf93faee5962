#!/usr/bin/env bash
# Thirty-third session, closing check of main with tcw under LinearArgs::pdl above M = 64 and the narrowed PDL
# dispatch rule for M = 65..256 (api.cu): this tree built alone; every kernel GPU doctest (the rule's doctest
# among them); kbit-verify --quick --pdl over dense.automatic and dense.tcw; then a record: kbit-bench automatic
# and automatic_pdl over the whole catalogue at M = 96, 128, 192, 256, k = 2, 4, f16 (block TOTALs, report.md).
# Pack first; carry .deps/sys.txz. Env: PF_BUDGET (420 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/pdlfinal" ${PF_BUDGET:-420}
device_build_new /tmp/pf kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 120
verify_run verify-quick-pdl 90 3 "verify --quick --pdl dense.automatic,dense.tcw" --quick --pdl \
  --kernels dense.automatic,dense.tcw
arm_setup() {
  KERNELS=automatic,automatic_pdl
  B="--M 96,128,192,256 --bits 2,4 --dtypes f16"
}
MIN_LEFT=20 REPS=1 bench_rotation pdlfinal record
[ -f "$W/bench-1-record.json" ] && .deps/gpu/kbit-bench report "$W/bench-1-record.json" --markdown "$W/report.md" \
  --svg-dir "$W/svg" > "$W/report.txt" 2>&1
rm -rf /tmp/pf/kernels /tmp/pf/lib 2>/dev/null; true
