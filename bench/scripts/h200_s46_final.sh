#!/usr/bin/env bash
# Forty-sixth session, closing call (H200; main built here, carried): the landed lone 64-token price with its bound
# (tcw_lone64_short, lib/kbit/tcw_sched.h: at most 4 steps a CTA, or 6 up to M = 256; -s46l measured the price
# without the bound):
#   1. the whole GPU doctest binary; kbit-verify over tcw at M = 96, 256, 512 (k = 2..5);
#   2. ncu (pipes, stalls, occupancy) of tcw on Qwen3 k_proj at M = 128, k = 2: the 64-token plan main now runs
#      against the 128-token plan of the fitted price (KBIT_TCW_LONE64=0), for why the lone 64-token plan wins.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s46f ${BUDGET:-240}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
verify_run verify-tcw 90 6 "verify tcw --m 96,256,512" --m 96,256,512 --kernels dense.tcw
c=dense/qwen3-coder-next.attn.k_proj/N512.K2048/M128/k2/f16/tcw
for arm in new fitted; do
  mkdir -p "$W/ncu-$arm"
  ( [ $arm = fitted ] && export KBIT_TCW_LONE64=0
    OUT="$W/ncu-$arm" CASES="$c" KREGEX="tcw_(streamk_)?kernel" timeout 90 bash bench/scripts/h100_pipe_util.sh \
      > "$W/ncu-$arm.log" 2>&1 )
  s "ncu $arm rc=$? after $((SECONDS - T0)) s"
  grep -E "duration|warps_active|registers_per_thread |issue_active|long_scoreboard|barrier|grid" "$W/ncu-$arm/pipes.txt" |
    head -8 | tee -a "$W/summary.txt"
done
