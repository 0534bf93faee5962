#!/usr/bin/env bash
# Where grouped_tcw spends its time at prefill sizes (docs/perf-notes.md, "grouped_tcw at prefill
# sizes": the per-CTA prologue and epilogue were inferred, not measured): first the grouped_tcw
# checks on this build (GPU doctests, memcheck over the MoE doctests, quick verify), then ncu with
# SourceCounters (stall samples per SASS instruction, the source page as CSV) of grouped_tcw_kernel
# on the rows still below the fp16 alternative.
# Usage (repo root on the GPU machine, binaries in .deps/gpu): bash bench/scripts/h100_gtcw_source.sh
# Writes $OUT/run.tar.gz (checks) and $OUT/ncu.tar.gz (profiles).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwsrc 100
gtcw_checks 60 60 60 memcheck
device_run_finish
cases=(
  "moe/glm-4.7-flash.mlp.experts.gate_up/E64.N3072.K2048.top4.realistic/T4096/k4/f16/grouped_tcw"  # 0.94x
  "moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T4096/k4/f16/grouped_tcw"  # 0.94x
  "moe/glm-4.7-flash.mlp.experts.down/E64.N2048.K1536.top4.realistic/T2048/k4/f16/grouped_tcw"  # 0.97x
)
NCU_KERNELS='grouped_tcw_kernel' NCU_EXTRA_SECTIONS=SourceCounters NCU_SOURCE_PAGE=1 NCU_SUMMARY_LINES=40 \
  bash bench/scripts/h100_ncu_profile.sh "${cases[@]}"
