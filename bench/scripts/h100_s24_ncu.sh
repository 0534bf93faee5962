#!/usr/bin/env bash
# ncu profile of grouped_tcv on the landed step loops (this tree), for the MoE rows still short of 3x at
# k = 4 (bench/results/2026-11-27-h100-s24close): Qwen3-Coder-Next experts.gate_up at M = 8 (2.73x) and,
# for comparison, M = 1 (3.42x); one verified cold launch each through bench/scripts/h100_pipe_util.sh
# (duration, DRAM throughput, pipes, warp stall reasons, occupancy). Build: kbit-verify only (16 jobs).
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Output under $OUT.
set -u
source bench/scripts/lib/device_build.sh
device_build . /tmp/ncubuild 16 kbit-verify || { tail -20 /tmp/ncubuild.log > $OUT/build-fail.txt; exit 1; }
mkdir -p .deps/gpu && cp /tmp/ncubuild/apps/kbit-verify/kbit-verify .deps/gpu/
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader > $OUT/gpu.txt
Q=moe/qwen3-coder-next.mlp.experts.gate_up/E512.N1024.K2048.top10.realistic
CASES="$Q/T8/k4/f16/grouped_tcv $Q/T1/k4/f16/grouped_tcv" bash bench/scripts/h100_pipe_util.sh
