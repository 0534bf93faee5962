#!/usr/bin/env bash
# Forty-fifth session, last call (main as -final-s45's; the same binaries): the full kbit-verify sweep over the MoE
# kernels whose choices this session changed (grouped_tcv's items and k = 2 table by the mean rows, grouped_tcw's k = 5
# kernels at two CTAs per SM, k = 5's dispatch), plain and --pdl, and compute-sanitizer on grouped_tcv cases that take
# the new paths (a popular expert split into items of 8, the k = 2 table at mean rows <= 4 with a hint above).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s45v ${BUDGET:-300}
gpu_info
verify_run verify-full 150 5 "verify --full grouped_tcv,grouped_tcw,automatic" --full \
  --kernels moe.grouped_tcv,moe.grouped_tcw,moe.automatic
verify_run verify-full-pdl 120 5 "verify --full --pdl grouped_tcv,automatic" --full --pdl \
  --kernels moe.grouped_tcv,moe.automatic
Q=moe/qwen3-coder-next.mlp.experts
sanitize_cases tcv 60 "memcheck racecheck" $Q.down/E512.N2048.K512.top10.realistic/T16/k4/f16/grouped_tcv \
  $Q.gate_up/E512.N1024.K2048.top10.realistic/T16/k2/bf16/grouped_tcv
