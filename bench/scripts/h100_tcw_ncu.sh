#!/usr/bin/env bash
# ncu on the wgmma kernel (tcw) and tcv for comparison, Llama-3-70B gate_up k = 4 f16: duration,
# DRAM throughput, pipe utilisation and warp stall reasons (one verified launch each, clocks left
# alone). Binaries in .deps/gpu; $OUT/ncu.txt (filtered) + gzipped raw pages.
set -u
for c in "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M32/k4/f16/tcw" "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M128/k4/f16/tcw" \
         "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M16/k4/f16/tcv"; do
  tag=$(echo "$c" | cut -d/ -f4,7 | tr '/' '_')
  timeout 150 ncu --clock-control none --kernel-name regex:'tcw_kernel|tcv_kernel' --launch-count 1 \
    --section ComputeWorkloadAnalysis --section SpeedOfLight --section WarpStateStats --section Occupancy \
    --section MemoryWorkloadAnalysis --page raw \
    .deps/gpu/kbit-verify --case "$c" --no-cublas --no-rerun --no-exact --shapes data/shapes.json > $OUT/raw_$tag.txt 2>&1
  echo "== $c rc=$?" >> $OUT/ncu.txt
  grep -E "gpu__time_duration.sum|dram__throughput.avg.pct_of_peak_sustained_elapsed|sm__warps_active.avg.pct_of_peak|sm__inst_executed_pipe_.*pct_of_peak_sustained_active|sm__pipe_.*cycles_active.avg.pct_of_peak_sustained_active|smsp__average_warps_issue_stalled_.*_per_issue_active.ratio|smsp__issue_active.avg.pct|launch__registers_per_thread|launch__occupancy_limit" $OUT/raw_$tag.txt \
    | grep -vE "\.max |\.min |\.sum\.pct" | awk '{ v=$NF+0; if (v >= 0.05 || $0 ~ /duration|dram|registers|occupancy|warps_active|issue_active/) print }' >> $OUT/ncu.txt
done
gzip -9 $OUT/raw_*.txt
cat $OUT/ncu.txt
