#!/usr/bin/env bash
# Forty-third session, landing call and record on the H200 (main with automatic keeping gemv at M = 1, k = 2 from 8 M
# weights under PDL where the balance is on; built here, binaries carried):
#   1. the whole GPU doctest binary (the dispatch expectation for Qwen3 q_proj updated);
#   2. kbit-verify --pdl over automatic on the moved case (Qwen3 q_proj, M = 1, k = 2, f16 and bf16), and --quick
#      --pdl over automatic and the MoE kernels;
#   3. the targets record: kbit-bench automatic and automatic_pdl over the whole catalogue, M = 1 .. 1024, k = 2 and 4,
#      f16 (each row verified by the bench), then bench/scripts/targets.py, as -record-s40.
set -u
source bench/scripts/lib/device_run.sh
device_run_init "$OUT/land" ${BUDGET:-420}
gpu_info
nvidia-smi --query-gpu=memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv,noheader | tee -a "$W/summary.txt"
gpu_doctest kernels kbit_tests_kernels 180
verify_moved 60 dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k2
verify_run verify-quick-pdl 120 4 "verify --quick --pdl automatic,moe" --quick --pdl --kernels dense.automatic,moe
arm_setup() { B="--M 1,2,4,8,16,32,64,128,256,512,1024 --bits 2,4 --dtypes f16 --markdown $W/report.md --svg-dir $W/svg"; }
REPS=1 MIN_LEFT=60 bench_rotation "${REC_TAG:-main}" record
python3 bench/scripts/targets.py "$W/bench-1-record.json" --markdown "$W/targets.md" >> "$W/summary.txt" 2>&1
