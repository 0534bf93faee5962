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
moe_catalogue $W/moe
B=${BENCH:---models qwen3-coder-next glm-4.7-flash --M 512,1024,2048,4096 --bits 2,3,4 --dtypes f16}
arm_setup() { KERNELS=grouped_tcw,automatic; [ "$1" = prev ] && BIN=.deps/gpu/kbit-bench-prev; }
REPS=2 MIN_LEFT=20 bench_rotation gtcwcopies prev copies
