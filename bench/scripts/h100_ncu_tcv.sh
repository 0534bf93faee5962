#!/usr/bin/env bash
# ncu on main (built on the GPU machine) for why tcv at M = 1..8 runs 1.5-1.8x gemv's M = 1 time on the
# K >= 4096 shapes (record-s17: Qwen3 dense.down tcv 8.26 us against gemv 4.96 at M = 1, 9.35 at M = 4;
# Llama-3-8B o_proj 10.46 against 5.75): gemv and tcv on the same weights at M = 1, tcv at M = 4, with
# source counters (h100_ncu_profile.sh; ncu runs without PDL and flushes the caches itself).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/ncutcv ${NT_BUDGET:-400}
device_build_new /tmp/ntbuild kbit-verify || exit 1
gpu_info
OUT=$W NCU_KERNELS='gemv_kernel|tcv_kernel' NCU_EXTRA_SECTIONS=SourceCounters NCU_SOURCE_PAGE=1 NCU_SUMMARY_LINES=45 timeout 300 \
  bash bench/scripts/h100_ncu_profile.sh \
  "dense/qwen3-coder-next.mlp.dense.down/N2048.K5120/M1/k4/f16/gemv" \
  "dense/qwen3-coder-next.mlp.dense.down/N2048.K5120/M1/k4/f16/tcv" \
  "dense/qwen3-coder-next.mlp.dense.down/N2048.K5120/M4/k4/f16/tcv" \
  "dense/llama-3-8b.attn.o_proj/N4096.K4096/M4/k4/f16/tcv" \
  "dense/qwen3-coder-next.mlp.dense.gate_up/N10240.K2048/M4/k4/f16/tcv" > "$W/ncu.log" 2>&1
s "ncu rc=$? after $((SECONDS - T0)) s"
