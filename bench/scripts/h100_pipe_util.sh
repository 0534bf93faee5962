#!/usr/bin/env bash
# ncu pipe utilisation (ComputeWorkloadAnalysis + InstructionStats, raw page) of tcv at k = 2 and 4
# and gemv at k = 2, M = 1, Llama-3-70B gate_up: which execution pipe limits each (one verified
# launch each, clocks left alone). Binaries in .deps/gpu; $OUT/pipes.txt (filtered) + raw logs.
set -u
for c in "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/tcv" "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/tcv" \
         "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/gemv"; do
  tag=$(echo "$c" | cut -d/ -f4,5,7 | tr '/' '_')
  timeout 120 ncu --clock-control none --kernel-name regex:'tcv_kernel|gemv_kernel' --launch-count 1 \
    --section ComputeWorkloadAnalysis --section InstructionStats --section SpeedOfLight --page raw \
    .deps/gpu/kbit-verify --case "$c" --no-cublas --no-rerun --no-exact --shapes data/shapes.json > $OUT/raw_$tag.txt 2>&1
  echo "== $c rc=$?" >> $OUT/pipes.txt
  grep -E "sm__inst_executed_pipe_.*pct_of_peak_sustained_active|sm__pipe_.*cycles_active.*pct_of_peak_sustained_active|gpu__time_duration.sum|dram__throughput.avg.pct" $OUT/raw_$tag.txt \
    | grep -vE "\.max|\.min|\.sum\.pct" | awk '{ if ($NF+0 >= 5 || $0 ~ /duration|dram/) print }' >> $OUT/pipes.txt
done
gzip -9 $OUT/raw_*.txt
cat $OUT/pipes.txt
