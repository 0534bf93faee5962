#!/usr/bin/env bash
# Prepared in the thirty-ninth session, not yet run: where grouped_tcv's time goes at MoE decode sizes. At k = 4 the
# MoE rows at M = 8..16 run at 47-72% of DRAM read bandwidth (bench/results/2026-11-28-h100-final2-s39; Qwen3
# experts.down 47-54%), and grouped_tcv is already the fastest grouped kernel there, so the issue-7 gap (2.21-2.92x
# of the best fp16 alternative against 3x) is the kernel's. Computed grids (lib/kbit/tcv_sched.h, ~792 slots): Qwen3
# experts.down at M = 8 launches 2,560 CTAs (80 work items, the host's bound, x 32 row tiles), ~2,000 of them with work
# (~2.5 waves) of 4 steps per warp, each scanning the 512 experts' offsets and staging its 16-32 KB pair table before
# its first step; at M = 4 ~1,150 with work (1.45 waves), at M = 1 640 (0.8).
# One build of main (kbit-verify); then ncu (bench/scripts/h100_pipe_util.sh: duration, DRAM throughput, pipes, stall
# reasons, occupancy) on grouped_tcv at k = 4, f16: Qwen3 experts.down and experts.gate_up and GLM experts.down at
# M = 8, and Qwen3 experts.down at M = 1 and 4 as the contrast (one launch each, clocks left alone). What to read:
# the stall reasons and issue activity at M = 8 against M = 1 -- a prologue/latency-bound kernel shows long
# scoreboard and barrier stalls with low issue activity and DRAM throughput well under peak.
# Pack first (bash bench/scripts/pack_device_build.sh); carry .deps/sys.txz; move bench/results out.
# Env: BUDGET (default 420 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/moeprof" 420
device_build_new /tmp/moeprof kbit-verify || exit 1
gpu_info
Q=moe/qwen3-coder-next.mlp.experts
G=moe/glm-4.7-flash.mlp.experts
mkdir -p "$W/ncu"
CASES="$Q.down/E512.N2048.K512.top10.realistic/T8/k4/f16/grouped_tcv \
$Q.gate_up/E512.N1024.K2048.top10.realistic/T8/k4/f16/grouped_tcv \
$G.down/E64.N2048.K1536.top4.realistic/T8/k4/f16/grouped_tcv \
$Q.down/E512.N2048.K512.top10.realistic/T1/k4/f16/grouped_tcv \
$Q.down/E512.N2048.K512.top10.realistic/T4/k4/f16/grouped_tcv" \
  OUT=$W/ncu timeout $(left) bash bench/scripts/h100_pipe_util.sh > "$W/ncu.log" 2>&1
s "ncu rc=$? after $((SECONDS - T0)) s"
