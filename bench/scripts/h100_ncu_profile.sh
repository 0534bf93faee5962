#!/usr/bin/env bash
# ncu profile of the kernels the performance notes ask about (docs/perf-notes.md, "Analysis,
# 2026-11-23"): is the M = 1 gemv issue-bound, and what holds the mma kernel at 26% of bandwidth?
# One kbit-verify case per kernel (--no-cublas --no-rerun --no-exact: exactly one kbit launch per
# case, verified against the CPU), the first matching launch profiled. --clock-control none: the
# GPU's clocks are left as they are (ncu would otherwise lock them to base for the run).
# Usage (repo root on the GPU machine, binaries in .deps/gpu): bash bench/scripts/h100_ncu_profile.sh
# [CASE...] -- the cases below by default; NCU_KERNELS (an ncu kernel-name regex, default
# 'gemv_kernel|mma_kernel') picks the launches profiled in each, NCU_LAUNCHES (default 1) how many
# of them (the first ones matching), NCU_EXTRA_SECTIONS more ncu sections (space-separated);
# NCU_SOURCE_PAGE=1 also writes each case's source page (per SASS instruction: stall samples and
# the other SourceCounters metrics) as <case>.sass.csv.
# Writes $OUT/ncu.tar.gz: one .ncu-rep and one text report (details page) per case, summary.txt.
set -u
D="$OUT/ncu"
mkdir -p "$D"
cases=("$@")
[ $# -gt 0 ] || cases=(
  "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/gemv"
  "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M4/k4/f16/gemv"
  "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M16/k4/f16/mma"
  "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M64/k4/f16/mma"
  "dense/qwen3-coder-next.attn.k_proj/N512.K2048/M1/k4/f16/gemv"
  "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/gemv"
)
sections=(--section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy
          --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats
          --section ComputeWorkloadAnalysis)
for x in ${NCU_EXTRA_SECTIONS:-}; do sections+=(--section "$x"); done  # e.g. SourceCounters (stall sampling per instruction)
for c in "${cases[@]}"; do
  tag=$(echo "$c" | tr '/' '_')
  # --page details: with --export, ncu prints the text report only when asked for a page
  timeout 240 ncu --clock-control none --kernel-name regex:"${NCU_KERNELS:-gemv_kernel|mma_kernel}" --launch-count "${NCU_LAUNCHES:-1}" \
    "${sections[@]}" --page details --export "$D/$tag" --force-overwrite \
    .deps/gpu/kbit-verify --case "$c" --no-cublas --no-rerun --no-exact --shapes data/shapes.json \
    > "$D/$tag.txt" 2>&1
  echo "$c rc=$? $(grep -E '^\[' "$D/$tag.txt" | cut -c1-60 | head -1)" | tee -a "$D/summary.txt"
  # the headline numbers, so the summary reads without the ncu GUI
  grep -E "DRAM Throughput|Memory Throughput|Duration|Issue Slots Busy|Issued Ipc Active|No Eligible|Achieved Occupancy|Registers Per Thread|Stall|Warp Cycles Per Issued|Tensor|Pipe" \
    "$D/$tag.txt" | sed 's/^/    /' | head -${NCU_SUMMARY_LINES:-30} >> "$D/summary.txt"
  if [ -n "${NCU_SOURCE_PAGE:-}" ]; then
    timeout 120 ncu --import "$D/$tag.ncu-rep" --page source --print-source sass --csv > "$D/$tag.sass.csv" 2> "$D/$tag.sass.err"
    echo "    source page rc=$? $(wc -l < "$D/$tag.sass.csv") lines" >> "$D/summary.txt"
  fi
done
cat "$D/summary.txt"
tar -C "$OUT" -czf "$OUT/ncu.tar.gz" ncu && rm -rf "$D"
