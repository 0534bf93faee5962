#!/usr/bin/env bash
# Forty-first session: gemv at M = 1, k = 3, 4 with its pair table in the activation type (KBIT_GEMV_H2, branch
# exp/gemv-h2). ncu on Llama-3-70B gate_up at M = 1, k = 4 (bench/results/2026-11-28-h200-p256, -d3): L1/shared
# throughput 87% of peak with issue at 62% and DRAM at 50% -- the float2 table's lookups (one LDS.64 per two
# weights: two wavefronts per warp-load) are the bound, which is why fewer instructions (p256) and more loads in
# flight (d3) bought nothing. H2: (cb[lo], cb[hi]) rounded to fp16/bf16 in 4-byte entries, 32 copies (the same 32
# KB): one wavefront per warp-load, two conversions more per pair (SASS f16 loop 4.67 -> 5.68 per weight). Weights
# with TiledView::half_cb only (tcw's and tcv's pair tables round the same way). One binary of each kind, built here
# for sm_90a at REC_TAG with the knob's default off, stripped, carried gzipped in .deps/gpuz; the environment's
# KBIT_GEMV_H2=1 turns it on.
# 1. The new doctest (forces H2 on and off), the gemv, split-K and PDL doctests with KBIT_GEMV_H2=1; memcheck and
#    racecheck over the new doctest.
# 2. kbit-verify over gemv and automatic with KBIT_GEMV_H2=1 on named M = 1 cases (f16, bf16, plain, --pdl).
# 3. kbit-bench gemv_pdl and automatic_pdl over the dense catalogue at M = 1, k = 3, 4, f16 and bf16, arms main
#    (KBIT_GEMV_H2=0) and h2 in rotation, three reps.
# 4. ncu (h100_pipe_util.sh) on Llama-3-70B gate_up at M = 1, k = 4 per arm; issue, L1 and DRAM lines in the summary.
# Move bench/results out for the call (the steps: knob_ab in lib/device_run.sh). Env: BUDGET (default 300 s), REC_TAG.
# As run (8e2dbb9) its doctest filter read '*activation-type*', which matches no doctest name, so that call's
# memcheck and racecheck ran nothing (the record says so); the filter here is the doctest's name.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/h2run ${BUDGET:-300}
knob_ab KBIT_GEMV_H2 h2 '*activation type*' 3,4 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/gemv \
  dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4 \
  dense/llama-3-70b.mlp.down/N8192.K28672/M1/k3 dense/llama-3-8b.attn.q_proj/N4096.K4096/M1/k4 \
  dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k3 dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240/M1/k4
