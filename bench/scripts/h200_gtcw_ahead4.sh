#!/usr/bin/env bash
# grouped_tcw fetching the weight words two steps ahead at k = 4, 5 as well as 3 (branch exp/gtcw-ahead4,
# KBIT_GTCW_AHEAD2_K45) on the H200, where ncu put its prefill step on long-scoreboard stalls (the weight words) at 8
# warps per SM (bench/results/2026-11-28-h200-checks-s43). One call: kbit-bench grouped_tcw over the MoE shapes at
# M = 256..4096, k = 4, 5, f16 (every row verified by the bench), arms main (.deps/gpu/kbit-bench-main, 689363a) and
# a2 (this branch's kbit-bench), two reps in rotation; bench/scripts/ab_moe.py over them.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/ga2 ${BUDGET:-240}
gpu_info
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_tcw
  B="--models qwen3-coder-next glm-4.7-flash --M 256,512,1024,2048,4096 --bits 4,5 --dtypes f16"
  [ "$1" = main ] && BIN=.deps/gpu/kbit-bench-main
}
REPS=2 MIN_LEFT=15 bench_rotation ga2 main a2
python3 bench/scripts/ab_moe.py "$W" main a2 > "$W/ab.txt" 2>&1
s "ab main a2:"; head -3 "$W/ab.txt" | tee -a "$W/summary.txt"
