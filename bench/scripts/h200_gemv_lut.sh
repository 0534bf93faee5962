#!/usr/bin/env bash
# Forty-second session: gemv at M = 1, k = 2 on per-warp tables of activation sums (KBIT_GEMV_LUT=1, branch
# exp/gemv-lut). Before each step a warp writes, for each adjacent element pair of its k-tile, the 16 sums
# cb[lo] x[2i] + cb[hi] x[2i + 1] (2 KB, one 16-byte store per lane and quad); the step then adds one 4-byte entry per
# pair of weights (PRMT + LDS.32 + FADD) where main loads a float2 codebook pair and does two FFMAs after converting
# the activations. The forty-first session's reading: main's k = 2 loop is held by L1/shared throughput (92%) and,
# where the table traffic is cut, by issue near 80%. This cuts both at once: one wavefront per warp-load instead of
# two (block h's tables in banks 0-15, h = 1's in 16-31), plus 16 store wavefronts per step, and ~25% fewer
# instructions in the hot loop (SASS). Predicted 1.10-1.30x at M = 1, k = 2 on >= 8 M weights; a null says the
# reading is wrong. Build this branch here (make kbit-bench kbit-verify kbit_tests_kernels), strip the three binaries,
# gzip them into .deps/gpuz/bins.tgz, carry .deps/gpuz and untar it first; move bench/results out for the call.
# Env: BUDGET (default 300 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/lutrun ${BUDGET:-300}
knob_ab KBIT_GEMV_LUT lut '*activation-sum*' 2 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/gemv \
  dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2 \
  dense/llama-3-70b.mlp.down/N8192.K28672/M1/k2 dense/llama-3-8b.attn.q_proj/N4096.K4096/M1/k2 \
  dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k2 dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240/M1/k2
