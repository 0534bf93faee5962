#!/usr/bin/env bash
# Thirty-first session: why a tcw step costs ~1 us at every token tile (bench/results/2026-11-27-h100-mncap:
# at k = 4, ~0.9-1.0 us per 64-token step, 1.1-1.25 per 128-token step, 1.6-1.7 per 256-token step, against
# 0.28 / 0.56 / 1.12 us of tensor work). ncu with the source page (stall samples per SASS instruction) on
# tcw, Llama-3-70B mlp.down (8192 x 28672), k = 4, at M = 64, 128 and 256 (64-, 128- and 256-token tiles,
# 128 CTAs of 112-224 steps each), one verified launch each, clocks left alone. Pack first; carry
# .deps/sys.txz. Env: SN_BUDGET (420 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/stepsncu" ${SN_BUDGET:-420}
device_build_new /tmp/sn kbit-verify || exit 1
gpu_info
G=dense/llama-3-70b.mlp.down/N8192.K28672
OUT=$W NCU_KERNELS='tcw_(streamk_)?kernel' NCU_SOURCE_PAGE=1 NCU_EXTRA_SECTIONS=SourceCounters NCU_SUMMARY_LINES=60 \
  timeout $(( $(left) - 10 )) bash bench/scripts/h100_ncu_profile.sh $G/M128/k4/f16/tcw $G/M64/k4/f16/tcw $G/M256/k4/f16/tcw \
  > $W/ncu.log 2>&1
s "ncu rc=$? after $((SECONDS - T0)) s"
