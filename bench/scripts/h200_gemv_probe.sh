#!/usr/bin/env bash
# Forty-first session: where gemv's M = 1 time goes on the H200. One kbit-bench built here with -DKBIT_GEMV_PROBE=1
# (branch exp/gemv-h2, a probe build: never main), carried as .deps/probe/kbit-bench. Arms, in rotation, two reps:
#   full  -- the pair-table kernels as built (KBIT_GEMV_PROBE_ON=0, the same dispatch as main);
#   probe -- KBIT_GEMV_PROBE_ON=1: the same grids, loads and pipeline with no decode (each tile's words, scales and
#            activations folded into the sums by a few integer ops): the memory side's own time (its rows FAIL
#            verification by design);
#   h2    -- KBIT_GEMV_H2=1, the 4-byte pair table (-h200-h2), here also launched plainly (gemv), not only under PDL.
# kbit-bench gemv and gemv_pdl on Llama-3-70B and Llama-3-8B at M = 1, k = 2, 3, 4, f16. Move bench/results out for
# the call. Env: BUDGET (default 150 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/proberun ${BUDGET:-150}
V=(.deps/probe/kbit-bench)
gpu_info
arm_setup() {
  BIN=.deps/probe/kbit-bench; KERNELS=gemv,gemv_pdl; B="--models llama-3-70b,llama-3-8b --M 1 --bits 2,3,4 --dtypes f16"
  case $1 in
    full) ENV=KBIT_GEMV_PROBE_ON=0 ;;
    probe) ENV=KBIT_GEMV_PROBE_ON=1 ;;
    h2) ENV="KBIT_GEMV_PROBE_ON=0 KBIT_GEMV_H2=1" ;;
  esac
}
if [ "${PHASE:-bench}" = bench ]; then
  RUN_MAX_S=40 REPS=2 MIN_LEFT=15 bench_rotation "${REC_TAG:-exp}" full probe h2
  exit 0
fi
# Second call (PHASE=ncu): kbit-bench times no row that fails verification, so the probe's times come from ncu on
# kbit-verify built the same way (carried as .deps/probe/kbit-verify): Llama-3-70B gate_up at M = 1, k = 2 and 4,
# gemv, f16, KBIT_GEMV_PROBE_ON=0 and 1 (one cold launch each; ncu's durations run ~20% above kbit-bench's here).
G=dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1
for k in 2 4; do
  for on in 0 1; do
    mkdir -p "$W/ncu-k$k-$on"
    env KBIT_GEMV_PROBE_ON=$on VERIFY=.deps/probe/kbit-verify OUT="$W/ncu-k$k-$on" CASES="$G/k$k/f16/gemv" timeout 60 \
      bash bench/scripts/h100_pipe_util.sh > "$W/ncu-k$k-$on.log" 2>&1
    zcat "$W"/ncu-k$k-$on/raw_*.gz 2>/dev/null | grep -E 'gpu__time_duration.sum|sm__issue_active.avg|gpu__dram_throughput.avg.pct|l1tex__throughput.avg.pct|long_scoreboard_per_issue' |
      awk -v a="k=$k probe=$on" '{print "ncu " a ": " $1, $NF}' | tee -a "$W/summary.txt"
  done
done
