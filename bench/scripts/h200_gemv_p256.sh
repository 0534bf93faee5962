#!/usr/bin/env bash
# Forty-first session: gemv's pair table on 256-byte rows at M = 1, k = 3, 4 (KBIT_GEMV_P256, branch exp/gemv-p256):
# entry e, copy l at byte e << 8 | l << 3, so the table offset is one PRMT of the index byte and the lane's offset
# (no LEA/IMAD per pair), and the step reads the tile in place (no register copy of the prefetch buffer). SASS of the
# f16 k = 4 workspace kernel's loop: 598 -> 505 instructions per 128 weights (4.67 -> 3.95 per weight). One binary
# of each kind, built here for sm_90a at REC_TAG with the knob's default off, stripped, carried in .deps/gpu; the
# environment's KBIT_GEMV_P256=1 turns it on.
# 1. The new doctest (forces the table on and off), then the gemv, split-K and PDL doctests with KBIT_GEMV_P256=1;
#    memcheck and racecheck over the new doctest.
# 2. kbit-verify over gemv and automatic with KBIT_GEMV_P256=1 on named M = 1 cases (f16, bf16, plain, --pdl).
# 3. kbit-bench gemv_pdl and automatic_pdl over the dense catalogue at M = 1, k = 3, 4, f16 and bf16, arms main
#    (KBIT_GEMV_P256=0) and p256 in rotation, three reps.
# 4. ncu (h100_pipe_util.sh) on Llama-3-70B gate_up at M = 1, k = 4 per arm, if time is left.
# Move bench/results out for the call (the steps: knob_ab in lib/device_run.sh). Env: BUDGET (default 430 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/p256run ${BUDGET:-430}
NCU_MIN=60 knob_ab KBIT_GEMV_P256 p256 '*256-byte-row*' 3,4 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/gemv \
  dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4 \
  dense/llama-3-70b.mlp.down/N8192.K28672/M1/k3 dense/llama-3-8b.attn.q_proj/N4096.K4096/M1/k4 \
  dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k3 dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240/M1/k4
