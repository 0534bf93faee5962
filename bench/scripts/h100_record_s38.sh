#!/usr/bin/env bash
# The thirty-eighth session's record of main: where issue 7's targets stand, every row from one kbit-bench run.
# One call, built on the GPU machine (pack first: bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz):
# kbit-verify --quick --pdl over automatic and the MoE kernels, then kbit-bench automatic and automatic_pdl over the
# whole catalogue at M = 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, k = 2 and 4, f16 (each row verified by the
# bench itself), then bench/scripts/targets.py over it. Env: BUDGET (default 565 s), REC_TAG (the commit to record; the device copy has no .git).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/rec" 565
device_build_new /tmp/rec kbit-bench kbit-verify || exit 1
gpu_info
verify_run verify-pdl 90 4 "verify --quick --pdl automatic,moe" --quick --pdl --kernels dense.automatic,moe
arm_setup() { B="--M 1,2,4,8,16,32,64,128,256,512,1024 --bits 2,4 --dtypes f16 --markdown $W/report.md --svg-dir $W/svg"; }
REPS=1 MIN_LEFT=60 bench_rotation "${REC_TAG:-main}" record
python3 bench/scripts/targets.py "$W/bench-1-record.json" --markdown "$W/targets.md" >> "$W/summary.txt" 2>&1
