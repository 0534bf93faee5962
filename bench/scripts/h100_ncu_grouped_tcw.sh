#!/usr/bin/env bash
# ncu profile of grouped_tcw where it still loses to the fp16 alternative (docs/perf-notes.md,
# "grouped_tcw": GLM-4.7-Flash experts at M >= 2048, Qwen3-Coder-Next at M = 4096) and where it wins
# (GLM M = 512): h100_ncu_profile.sh on these cases, the first two matching launches of each
# profiled: the permute pre-pass (tcw_permute_kernel) and grouped_tcw_kernel.
# Usage (repo root on the GPU machine, binaries in .deps/gpu): bash bench/scripts/h100_ncu_grouped_tcw.sh
# Writes $OUT/ncu.tar.gz: one .ncu-rep and one text report (details page) per case, summary.txt.
set -u
cases=(
  "moe/glm-4.7-flash.mlp.experts.down/E64.N2048.K1536.top4.realistic/T512/k4/f16/grouped_tcw"   # tile 32, 1.46x
  "moe/glm-4.7-flash.mlp.experts.down/E64.N2048.K1536.top4.realistic/T2048/k4/f16/grouped_tcw"  # tile 128, 0.93x
  "moe/glm-4.7-flash.mlp.experts.down/E64.N2048.K1536.top4.realistic/T4096/k4/f16/grouped_tcw"  # tile 256, 0.99x
  "moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T4096/k4/f16/grouped_tcw"  # tile 128, 0.78x
  "moe/glm-4.7-flash.mlp.experts.down/E64.N2048.K1536.top4.realistic/T2048/k2/f16/grouped_tcw"  # tile 64, k = 2
)
NCU_KERNELS='tcw_permute_kernel|grouped_tcw_kernel' NCU_LAUNCHES=2 exec bash bench/scripts/h100_ncu_profile.sh "${cases[@]}"
