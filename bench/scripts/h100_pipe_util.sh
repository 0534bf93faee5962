#!/usr/bin/env bash
# ncu on kbit-verify cases (one verified launch each, clocks left alone): duration, DRAM throughput,
# pipe utilisation, warp stall reasons, occupancy. CASES: space-separated case names (default: tcv
# at k = 2 and 4 and gemv at k = 2, M = 1, Llama-3-70B gate_up -- the 2026-11-25-h100-pipes record);
# the kernel profiled is the case's last path element. Binaries in .deps/gpu; $OUT/pipes.txt
# (filtered) + gzipped raw pages.
# The tcw profile (bench/results/2026-11-25-h100-tcw/ncu) ran M32/k4/f16/tcw, M128/k4/f16/tcw and
# M16/k4/f16/tcv, each under dense/llama-3-70b.mlp.gate_up/N57344.K8192/.
# VERIFY: the kbit-verify binary (default .deps/gpu/kbit-verify; an experiment arm's build). KREGEX: the
# kernel-name regex (default the case's kernel + _kernel; e.g. tcw_(streamk_)?kernel for tcw's stream-K plans).
set -u
G=dense/llama-3-70b.mlp.gate_up/N57344.K8192
for c in ${CASES:-$G/M1/k2/f16/tcv $G/M1/k4/f16/tcv $G/M1/k2/f16/gemv}; do
  tag=$(echo "$c" | cut -d/ -f2,4,5,7 | tr '/' '_')
  timeout 150 ncu --clock-control none --kernel-name regex:"${KREGEX:-${c##*/}_kernel}" --launch-count 1 \
    --section ComputeWorkloadAnalysis --section InstructionStats --section SpeedOfLight --section WarpStateStats \
    --section Occupancy --section MemoryWorkloadAnalysis --page raw \
    ${VERIFY:-.deps/gpu/kbit-verify} --case "$c" --no-cublas --no-rerun --no-exact --shapes data/shapes.json > $OUT/raw_$tag.txt 2>&1
  echo "== $c rc=$?" >> $OUT/pipes.txt
  grep -E "gpu__time_duration.sum|dram__throughput.avg.pct_of_peak_sustained_elapsed|sm__warps_active.avg.pct_of_peak|sm__inst_executed_pipe_.*pct_of_peak_sustained_active|sm__pipe_.*cycles_active.avg.pct_of_peak_sustained_active|smsp__average_warps_issue_stalled_.*_per_issue_active.ratio|smsp__issue_active.avg.pct|launch__registers_per_thread|launch__occupancy_limit" $OUT/raw_$tag.txt \
    | grep -vE "\.max |\.min |\.sum\.pct" | awk '{ v=$NF+0; if (v >= 0.05 || $0 ~ /duration|dram|registers|occupancy|warps_active|issue_active/) print }' >> $OUT/pipes.txt
done
gzip -9 $OUT/raw_*.txt
cat $OUT/pipes.txt
