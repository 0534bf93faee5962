#!/usr/bin/env bash
# Forty-first session: gemv at M = 1, k = 3, 4 with three k-tiles per warp in flight (KBIT_GEMV_D3, branch
# exp/gemv-p256). ncu on Llama-3-70B gate_up (bench/results/2026-11-28-h200-p256): the pair-table loop issues on 62%
# of cycles with DRAM 50% busy, and 16% fewer instructions (the 256-byte table at k = 3) bought nothing -- the loop
# waits on its loads (long scoreboard), so more bytes in flight, not fewer instructions. D3: three named register
# tiles (the loop unrolled by three, each refilled once its step has read it), the tile without activations (the
# slice's activations copied once into shared memory). One binary of each kind, built here for sm_90a at REC_TAG
# with the knob's default off, stripped, carried in .deps/gpu; the environment's KBIT_GEMV_D3=1 turns it on.
# 1. The new doctest (forces D3 on and off), the gemv, split-K and PDL doctests with KBIT_GEMV_D3=1; memcheck and
#    racecheck over the new doctest.
# 2. kbit-verify over gemv and automatic with KBIT_GEMV_D3=1 on named M = 1 cases (f16, bf16, plain, --pdl).
# 3. kbit-bench gemv_pdl and automatic_pdl over the dense catalogue at M = 1, k = 3, 4, f16 and bf16, arms main
#    (KBIT_GEMV_D3=0) and d3 in rotation, three reps.
# 4. ncu (h100_pipe_util.sh) on Llama-3-70B gate_up at M = 1, k = 4 per arm; duration, issue, DRAM and L1 lines into the
#    summary (as run, before knob_ab: without the L1 lines).
# Move bench/results out for the call (the steps: knob_ab in lib/device_run.sh). Env: BUDGET (default 300 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/d3run ${BUDGET:-300}
knob_ab KBIT_GEMV_D3 d3 '*three-tile*' 3,4 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/gemv \
  dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4 \
  dense/llama-3-70b.mlp.down/N8192.K28672/M1/k3 dense/llama-3-8b.attn.q_proj/N4096.K4096/M1/k4 \
  dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k3 dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240/M1/k4
