#!/usr/bin/env bash
# Device-side: warp stall reasons (ncu WarpStateStats, raw page) of one verified launch each of
# tcv at M = 1 and 16 and gemv at M = 1 on Llama-3-70B gate_up, and tcv on a small Qwen3 shape;
# clocks left alone. Repo root on the GPU machine, binaries in .deps/gpu. Output: $OUT/stalls.txt.
set -u
for c in "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/tcv" "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M16/k4/f16/tcv" \
         "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/gemv" "dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M8/k4/f16/tcv"; do
  echo "== $c" >> $OUT/stalls.txt
  timeout 90 ncu --clock-control none --kernel-name regex:'tcv_kernel|gemv_kernel' --launch-count 1 \
    --section WarpStateStats --section SchedulerStats --section SpeedOfLight --section Occupancy --page raw \
    .deps/gpu/kbit-verify --case "$c" --no-cublas --no-rerun --no-exact --shapes data/shapes.json > /tmp/ncu.txt 2>&1
  echo "rc=$?" >> $OUT/stalls.txt
  grep -E "issue_stalled|warps_active.avg.pct|dram__throughput.avg.pct|gpu__time_duration.sum|issue_active|inst_executed.avg.per_cycle_active|launch__registers|launch__grid_size|pcsamp" /tmp/ncu.txt \
    | grep -vE "_not_issued|\.max |\.min " >> $OUT/stalls.txt
done
cat $OUT/stalls.txt | grep -E "==|rc=|duration|dram__|stalled.*ratio" | awk '{ if ($0 ~ /stalled/) { if ($3+0 > 0.3) print } else print }'
