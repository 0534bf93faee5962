#!/usr/bin/env bash
# Forty-first session: gemv at M = 1 stepping its tile in place (KBIT_GEMV_IP, branch exp/gemv-h2), k = 2 with 5
# CTAs per SM instead of 4. The probe (bench/results/2026-11-28-h200-probe) had gemv's k = 2 loads alone at 61% of
# DRAM on Llama-3-70B gate_up (latency-bound: two half-size tiles in flight per warp), and H2 at k = 2
# (-h200-h2k2) took half the L1/shared traffic and a quarter more instructions for no change at all: more warps in
# flight is what is left to try there. The in-place step (no copy of the prefetch buffer) frees the registers; at
# k = 3 and 4 it runs at main's occupancy (their SASS loop is unchanged in length). Same steps as
# h200_gemv_h2k2.sh: the doctest ('*in-place step*'), the gemv, split-K and PDL doctests with KBIT_GEMV_IP=1,
# memcheck and racecheck over the doctest, kbit-verify on the named M = 1 cases, kbit-bench gemv_pdl and
# automatic_pdl over the dense catalogue at M = 1, k = 2, 3, 4, f16 and bf16, main / ip, three reps, and ncu on
# Llama-3-70B gate_up at k = 2. Env: BUDGET (default 300 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/iprun ${BUDGET:-300}
knob_ab KBIT_GEMV_IP ip '*in-place step*' 2,3,4 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/gemv \
  dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2 \
  dense/llama-3-70b.mlp.down/N8192.K28672/M1/k3 dense/llama-3-8b.attn.q_proj/N4096.K4096/M1/k2 \
  dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k3 dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240/M1/k4
