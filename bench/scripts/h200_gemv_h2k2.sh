#!/usr/bin/env bash
# Forty-first session: h200_gemv_h2.sh for k = 2 (branch exp/gemv-h2). The probe (bench/results/2026-11-28-h200-probe)
# put gemv at M = 1, k = 2 on Llama-3-70B gate_up at 91% of L1/shared throughput with issue at 61%: the adjacent-pair
# table's 8-byte loads. H2 at k = 2: the 16 codes' pairs rounded to the activation type, 32 copies, rows of 256 bytes
# (4 KB), the offset one PRMT of the code and the lane's copy (SASS f16 3.80 -> 4.71 instructions per weight; half
# the table wavefronts). Same steps as h200_gemv_h2.sh: the doctest ('*activation type*', now k = 2..4), the gemv,
# split-K and PDL doctests with KBIT_GEMV_H2=1, memcheck and racecheck over the doctest, kbit-verify on the named M = 1
# cases, then kbit-bench gemv_pdl and automatic_pdl over the dense catalogue at M = 1, k = 2, f16 and bf16, main /
# h2, three reps, and ncu on Llama-3-70B gate_up at k = 2. Env: BUDGET (default 300 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/h2k2run ${BUDGET:-300}
knob_ab KBIT_GEMV_H2 h2 '*activation type*' 2 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/gemv \
  dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2 \
  dense/llama-3-70b.mlp.down/N8192.K28672/M1/k3 dense/llama-3-8b.attn.q_proj/N4096.K4096/M1/k2 \
  dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k3 dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240/M1/k4
