#!/usr/bin/env bash
# ncu profile of grouped_tcw where it still loses to the fp16 alternative (docs/perf-notes.md,
# "grouped_tcw": GLM-4.7-Flash experts at M >= 2048, Qwen3-Coder-Next at M = 4096) and where it wins
# (GLM M = 512), one kbit-verify case each (--no-cublas --no-rerun --no-exact: one kbit launch per
# case, verified against the CPU), the first grouped_tcw_kernel launch profiled (the permute
# pre-pass is skipped by the name filter). --clock-control none leaves the GPU's clocks alone.
# Written in the ninth session with no device time left: the case names parse (kbit-verify --case
# NAME --list) but the script has not run on a GPU yet.
# Usage (repo root on the GPU machine, binaries in .deps/gpu): bash bench/scripts/h100_ncu_grouped_tcw.sh
# Writes $OUT/ncu.tar.gz: one .ncu-rep and one text report (details page) per case, summary.txt.
set -u
D="$OUT/ncu"
mkdir -p "$D"
cases=(
  "moe/glm-4.7-flash.mlp.experts.down/E64.N2048.K1536.top4.realistic/T512/k4/f16/grouped_tcw"   # tile 32, 1.46x
  "moe/glm-4.7-flash.mlp.experts.down/E64.N2048.K1536.top4.realistic/T2048/k4/f16/grouped_tcw"  # tile 128, 0.93x
  "moe/glm-4.7-flash.mlp.experts.down/E64.N2048.K1536.top4.realistic/T4096/k4/f16/grouped_tcw"  # tile 256, 0.99x
  "moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T4096/k4/f16/grouped_tcw"  # tile 128, 0.78x
  "moe/glm-4.7-flash.mlp.experts.down/E64.N2048.K1536.top4.realistic/T2048/k2/f16/grouped_tcw"  # tile 64, k = 2
)
sections=(--section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy
          --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats
          --section ComputeWorkloadAnalysis)
for c in "${cases[@]}"; do
  tag=$(echo "$c" | tr '/' '_')
  timeout 240 ncu --clock-control none --kernel-name regex:'grouped_tcw_kernel' --launch-count 1 \
    "${sections[@]}" --page details --export "$D/$tag" --force-overwrite \
    .deps/gpu/kbit-verify --case "$c" --no-cublas --no-rerun --no-exact --shapes data/shapes.json \
    > "$D/$tag.txt" 2>&1
  echo "$c rc=$? $(grep -E '^\[' "$D/$tag.txt" | cut -c1-60 | head -1)" | tee -a "$D/summary.txt"
  grep -E "DRAM Throughput|Memory Throughput|Duration|Issue Slots Busy|Issued Ipc Active|No Eligible|Achieved Occupancy|Registers Per Thread|Stall|Warp Cycles Per Issued|Tensor|Pipe" \
    "$D/$tag.txt" | sed 's/^/    /' | head -30 >> "$D/summary.txt"
done
cat "$D/summary.txt"
tar -C "$OUT" -czf "$OUT/ncu.tar.gz" ncu && rm -rf "$D"
