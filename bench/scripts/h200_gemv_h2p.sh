#!/usr/bin/env bash
# Prepared in the forty-first session, not yet run (no device time left): gemv at M = 1, k = 3 on its pair table in
# the activation type with rows of 256 bytes (branch exp/gemv-h2p; KBIT_GEMV_H2=1 turns H2 on, and on this branch
# H2 at k = 3 is that table). The reading of docs/perf-notes.md (forty-first session): the pair-table loop is held by
# L1/shared throughput and, where the table's traffic is cut, by issue near 80%. h2 at k = 3 (128-byte rows: an LEA
# per pair) cut the traffic but added 22% instructions and lost (0.960x); here the offset is one PRMT of the index
# byte and the lane's copy, so the loop is 4.68 -> 5.18 (f16), 4.80 -> 5.80 (bf16) instructions per weight with half
# the table's wavefronts, at 4 CTAs per SM (the table is 32 KB). Predicted 1.00-1.10x at M = 1, k = 3 on >= 8 M shapes
# if the reading holds (f16 more than bf16). Build this branch here (make kbit-bench kbit-verify kbit_tests_kernels),
# strip the three binaries into .deps/gpu, tar and gzip them into .deps/gpuz/bins.tgz, carry .deps/gpuz and untar it
# on the device first; move bench/results out for the call. Env: BUDGET (default 300 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/h2prun ${BUDGET:-300}
knob_ab KBIT_GEMV_H2 h2p '*activation type*' 3 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k3/f16/gemv \
  dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k3 \
  dense/llama-3-70b.mlp.down/N8192.K28672/M1/k3 dense/llama-3-8b.attn.q_proj/N4096.K4096/M1/k3 \
  dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k3 dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240/M1/k3
