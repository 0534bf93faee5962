#!/usr/bin/env bash
# ncu source counters on main (built on the GPU machine) for the next leads: gemv on Qwen3-Coder-Next
# dense.gate_up at M = 1, k = 4 (dispatched to gemv since be23e09) and on its k_proj (a cluster grid,
# the latency floor of the small shapes).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/ncus16 ${NS_BUDGET:-400}
device_build_new /tmp/nsbuild kbit-verify || exit 1
OUT=$W NCU_KERNELS='gemv_kernel' NCU_EXTRA_SECTIONS=SourceCounters NCU_SOURCE_PAGE=1 timeout 200 \
  bash bench/scripts/h100_ncu_profile.sh "dense/qwen3-coder-next.mlp.dense.gate_up/N10240.K2048/M1/k4/f16/gemv" \
  "dense/qwen3-coder-next.attn.k_proj/N512.K2048/M1/k4/f16/gemv" > "$W/ncu.log" 2>&1
s "ncu rc=$? after $((SECONDS - T0)) s"
# the profiles and their summary: $OUT/ncu.tar.gz (h100_ncu_profile.sh)
