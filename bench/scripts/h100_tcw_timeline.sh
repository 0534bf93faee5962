#!/usr/bin/env bash
# Thirty-sixth session (branch exp/tcw-timeline, merged): where a tcw step's time goes. Its steps first ran inside bench/scripts/h100_timeline_checks.sh (bench/results/2026-11-28-h100-timeline).
# This tree built with -DKBIT_TCW_TIMELINE=1 (kernels/tcw_common.cuh: tcw_kernel's warps stamp their SM clock at six
# points of each step; off, the kernels are byte-identical to main's), kbit_tests_kernels only; then the doctest
# "gpu: tcw timeline ..." (per-tile plans forced; Llama-3-8B q_proj M = 288, 512 at k = 4 and 288 at k = 2,
# Llama-3-70B q_proj M = 256, 128 at k = 4) writes the stamps to timeline.csv.gz, checks each warp's events are in
# order, and bench/scripts/tcw_timeline.py summarizes them (timeline.txt): cycles per step split into the weights'
# wait, wgmma_wait<1>, the first half's fragments, sync_step (activation stage and the previous wgmma), the second
# half, the refill. Pack first; carry .deps/sys.txz. Env: TT_BUDGET (330 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/timeline" ${TT_BUDGET:-330}
CUDA_FLAGS=-DKBIT_TCW_TIMELINE=1 device_build_new /tmp/tt kbit_tests_kernels || exit 1
gpu_info
(cd .deps/gpu && KBIT_TCW_TIMELINE_OUT=$W/timeline.csv timeout 120 ./kbit_tests_kernels -tc='*timeline*' \
  > "$W/kernels-timeline.txt" 2>&1)
s "timeline doctest rc=$? after $((SECONDS - T0)) s"; grep -E "assertions|Status|ERROR" "$W/kernels-timeline.txt" | head -6 | tee -a "$W/summary.txt"
[ -s "$W/timeline.csv" ] && python3 bench/scripts/tcw_timeline.py "$W/timeline.csv" | tee "$W/timeline.txt" | tee -a "$W/summary.txt"
[ -s "$W/timeline.csv" ] && gzip -9 "$W/timeline.csv"
rm -rf /tmp/tt/lib /tmp/tt/kernels 2>/dev/null; true
