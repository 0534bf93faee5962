#!/usr/bin/env bash
# Thirty-second session: where the time of tcw goes on the small prefill shapes that lose to cuBLAS fp16
# (automatic_pdl at M = 128..256, k = 4: Qwen3 q_proj 0.63x at M = 128, o_proj 0.82x; bench/results/
# 2026-11-27-h100-minb64land). ncu (clocks left alone) over one kbit-verify case each (one kbit launch:
# tcw_permute_kernel, the main kernel and, where K is split, tcw_reduce_kernel or tcw_fixup_kernel), every tcw
# launch: duration, launch and occupancy, the SOL throughputs. Builds kbit-verify here. Pack first; carry
# .deps/sys.txz.
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/smallncu" ${SN_BUDGET:-400}
device_build_new /tmp/sn kbit-verify || exit 1
gpu_info
for c in "dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M128/k4/f16/tcw" \
         "dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M256/k4/f16/tcw" \
         "dense/qwen3-coder-next.attn.o_proj/N2048.K4096/M256/k4/f16/tcw" \
         "dense/llama-3-8b.attn.q_proj/N4096.K4096/M256/k4/f16/tcw" \
         "dense/glm-4.7-flash.mlp.shared_experts.gate_up/N20480.K2048/M256/k4/f16/tcw"; do
  tag=$(echo "$c" | tr '/' '_')
  timeout 120 ncu --clock-control none --kernel-name regex:'tcw' --launch-count 4 --section SpeedOfLight \
    --section LaunchStats --section Occupancy --page details --export "$W/$tag" --force-overwrite \
    .deps/gpu/kbit-verify --case "$c" --no-cublas --no-rerun --no-exact --shapes data/shapes.json > "$W/$tag.txt" 2>&1
  s "$c rc=$?"
  grep -E "Context [0-9]|Duration|Grid Size|Registers Per|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|Block Limit Registers" \
    "$W/$tag.txt" | sed 's/^/    /' | head -60 >> "$W/summary.txt"
done
