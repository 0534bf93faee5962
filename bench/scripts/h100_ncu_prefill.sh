#!/usr/bin/env bash
# Twenty-sixth session: why the dense kernels lose to cuBLAS at prefill sizes (bench/results/
# 2026-11-27-h100-laudit): ncu on tcw at M = 512 and 1024 and on the rewritten dequantize kernel, k = 4,
# Llama-3-70B gate_up (57344 x 8192), one verified launch each (kbit-verify --case, cuBLAS reference,
# clocks left alone). Sections: SpeedOfLight, ComputeWorkloadAnalysis, InstructionStats,
# WarpStateStats, Occupancy, MemoryWorkloadAnalysis. Filtered metrics in $W/pipes.txt, raw pages gzipped.
# Recorded: bench/results/2026-11-27-h100-ncu-prefill. Pack first with bash
# bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: NP_BUDGET (420 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/ncupre ${NP_BUDGET:-420}
device_build_new /tmp/np-build kbit-verify || exit 1
gpu_info
G=dense/llama-3-70b.mlp.gate_up/N57344.K8192
for spec in "$G/M512/k4/f16/tcw:tcw_(streamk_)?kernel" "$G/M1024/k4/f16/tcw:tcw_(streamk_)?kernel" \
            "$G/M1024/k4/f16/dequant_cublas:dequant_kernel"; do
  c=${spec%%:*} re=${spec#*:}
  tag=$(echo "$c" | cut -d/ -f4,5,7 | tr '/' '_')
  [ "$(left)" -gt 40 ] || break
  timeout $(( $(left) - 20 )) ncu --clock-control none --kernel-name regex:"$re" --launch-count 1 \
    --section ComputeWorkloadAnalysis --section InstructionStats --section SpeedOfLight --section WarpStateStats \
    --section Occupancy --section MemoryWorkloadAnalysis --page raw \
    .deps/gpu/kbit-verify --case "$c" --no-rerun --no-exact --shapes data/shapes.json > $W/raw_$tag.txt 2>&1
  s "ncu $c rc=$? after $((SECONDS - T0)) s"
  echo "== $c" >> $W/pipes.txt
  grep -E "gpu__time_duration.sum|dram__throughput.avg.pct_of_peak_sustained_elapsed|lts__t_bytes.sum.per_second|l1tex__throughput.avg.pct|lts__throughput.avg.pct|sm__throughput.avg.pct|sm__warps_active.avg.pct_of_peak|sm__inst_executed_pipe_.*pct_of_peak_sustained_active|sm__pipe_.*cycles_active.avg.pct_of_peak_sustained_active|smsp__average_warps_issue_stalled_.*_per_issue_active.ratio|smsp__issue_active.avg.pct|launch__registers_per_thread|launch__occupancy_limit|launch__grid_size|launch__block_size|dram__bytes_read.sum |dram__bytes_write.sum " $W/raw_$tag.txt \
    | grep -vE "\.max |\.min |\.sum\.pct" | awk '{ v=$NF+0; if (v >= 0.05 || $0 ~ /duration|dram|registers|occupancy|warps_active|issue_active|grid|block/) print }' >> $W/pipes.txt
done
gzip -9 $W/raw_*.txt
