#!/usr/bin/env bash
# Forty-first session: gemv at M = 1, k = 2 decoding quads of adjacent elements (KBIT_GEMV_Q4, branch exp/gemv-q4).
# The timeline (bench/results/2026-11-28-h200-gemvtl; later found perturbed by its own stamps) had a warp spend ~19% of each step issuing its next tile's 12
# loads behind the shared-memory queue and ~55% decoding; at k = 2 the index of 4 adjacent elements is one byte (a
# nibble of each plane, no transpose), so one LDS.128 of a 4-float entry (8 copies, 32 KB) serves 4 weights: half
# the shared loads and 14% fewer instructions (SASS f16 3.80 -> 3.28 per weight; LDS 64 -> 32 per 128 weights), the
# same wavefronts. Steps as h200_gemv_ip.sh: the doctest ('*quad table*'), the gemv, split-K and PDL doctests with
# KBIT_GEMV_Q4=1, memcheck and racecheck over the doctest, kbit-verify on named M = 1, k = 2 cases, kbit-bench
# gemv_pdl and automatic_pdl over the dense catalogue at M = 1, k = 2, f16 and bf16, main / q4, three reps, and ncu
# on Llama-3-70B gate_up at k = 2. Env: BUDGET (default 300 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/q4run ${BUDGET:-300}
knob_ab KBIT_GEMV_Q4 q4 '*quad table*' 2 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/gemv \
  dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2 \
  dense/llama-3-70b.mlp.down/N8192.K28672/M1/k2 dense/llama-3-8b.attn.q_proj/N4096.K4096/M1/k2 \
  dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k2 dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240/M1/k2
