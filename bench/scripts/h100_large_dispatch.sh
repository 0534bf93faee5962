#!/usr/bin/env bash
# Twenty-sixth session: tcw against dequant + cuBLAS at prefill sizes after the dequantize rewrite
# (bench/results/2026-11-27-h100-dequant), for the M > 16 dispatch rules of choose_kernel. One
# kbit-bench run over the dense shapes of all four catalogue models (MoE shapes left out), M = 32..1024,
# k = 2, 4, 5, f16: tcw_pdl, dequant_cublas and automatic_pdl. Recorded: bench/results/2026-11-27-h100-ldisp.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: LD_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/ldisp ${LD_BUDGET:-560}
device_build_new /tmp/ld-build kbit-bench || exit 1
gpu_info
dense_catalogue "$W"
timeout -s INT $(( $(left) - 10 )) .deps/gpu/kbit-bench --shapes "$SHAPES" --git-commit "ldisp-$(git rev-parse --short HEAD 2>/dev/null || echo tree)" \
  --M 32 64 128 256 512 1024 --bits 2 4 5 --dtypes f16 --kernels tcw_pdl,dequant_cublas,automatic_pdl \
  --json $W/bench.json --markdown $W/bench.md > $W/bench.txt 2>&1
s "bench rc=$? after $((SECONDS - T0)) s"; grep -E "dispatch audit" $W/bench.txt | tee -a $W/summary.txt
