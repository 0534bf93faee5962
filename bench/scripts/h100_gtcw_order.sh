#!/usr/bin/env bash
# grouped_tcw with an item-major 1D grid (the row tiles of one work item adjacent, so they share its
# activation tiles in L2) against main's (item x row tile, row tile the slower index), one call:
# GPU doctests, memcheck and racecheck over the MoE + grouped_tcw doctests, kbit-verify --quick on
# grouped_tcw + automatic (MoE), kbit-bench A/B/A/B on the MoE shapes at M = 1024..4096, k = 2, 4,
# then ncu of the new kernel at the two cases profiled before (GLM M = 4096, Qwen3 M = 4096, k = 4).
# Binaries in .deps/gpu: this build's, and main's kbit-bench as kbit-bench-main.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcworder 540
gtcw_checks 60 90 90 memcheck racecheck
moe_catalogue $W/moe
B=${BENCH:---models qwen3-coder-next glm-4.7-flash --M 1024,2048,4096 --bits 2,4 --dtypes f16}
arm_setup() { KERNELS=grouped_tcw,automatic; [ "$1" = main ] && BIN=.deps/gpu/kbit-bench-main; }
BUDGET=$((BUDGET - 60)) REPS=${REPS:-2} MIN_LEFT=20 bench_rotation gtcworder main order
NCU_SUMMARY_LINES=70 NCU_KERNELS=grouped_tcw_kernel bash bench/scripts/h100_ncu_profile.sh \
  "moe/glm-4.7-flash.mlp.experts.down/E64.N2048.K1536.top4.realistic/T4096/k4/f16/grouped_tcw" \
  "moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T4096/k4/f16/grouped_tcw" > "$W/ncu-log.txt" 2>&1
s "ncu rc=$? after $((SECONDS - T0)) s"
