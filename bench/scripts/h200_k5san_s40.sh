#!/usr/bin/env bash
# Fortieth session, last call on the H200: compute-sanitizer racecheck and memcheck on the three MoE cases whose kernel
# the k = 5 rule moved to grouped_gemv at 20 routed rows (Qwen3 experts.gate_up and experts.down at M = 2, GLM
# experts.gate_up at M = 5; f16), by name through kbit-verify over automatic without cuBLAS (the closing call's
# racecheck over the MoE kernel doctests was cut by its 60 s timeout before it reached them). Carries kbit-verify
# (REC_TAG) in .deps/gpu. Env: BUDGET (default 200 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init "$OUT/san" ${BUDGET:-200}
gpu_info
sanitize_cases moved 60 "racecheck memcheck" \
  moe/qwen3-coder-next.mlp.experts.gate_up/E512.N1024.K2048.top10.realistic/T2/k5/f16/automatic \
  moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T2/k5/f16/automatic \
  moe/glm-4.7-flash.mlp.experts.gate_up/E64.N3072.K2048.top4.realistic/T5/k5/f16/automatic
