#!/usr/bin/env bash
# grouped_tcw with the activation copies issued from one per-thread pointer (the copy loop was 22% of
# the stall samples at GLM-4.7-Flash experts.gate_up M = 4096, bench/results/2026-11-25-h100-gtcwsource)
# against main before it, one call: GPU doctests, memcheck and racecheck over the MoE + grouped_tcw
# doctests, kbit-verify --quick on grouped_tcw + automatic (MoE), kbit-bench A/B/A/B on the MoE
# shapes at M = 512..4096, k = 2..4 (BENCH overrides the sweep flags).
# Binaries in .deps/gpu: this build's; kbit-bench-prev (main before the change).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwcopies ${GTCW_BUDGET:-500}
gtcw_checks 60 90 90 memcheck racecheck
moe_ab gtcwcopies grouped_tcw,automatic prev .deps/gpu/kbit-bench-prev copies
