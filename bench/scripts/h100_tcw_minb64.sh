#!/usr/bin/env bash
# Thirty-second session: tcw's 64-token kernels at two CTAs per SM for k = 4 and 5 (KBIT_TCW_MINB64,
# tcw_common.cuh: bit k set = __launch_bounds__(256, 2) at 64 tokens). ptxas: k = 4's pair-table kernels
# 130 -> 123 (tcw_kernel) and 143 -> 128 (stream-K) registers, no spills; k = 5 128 with 60 / 88 bytes spilled.
# On main they hold one CTA per SM (8 warps, 2 per scheduler); k = 2's 64-token kernels hold two and counting
# two won 1.00-1.32x where a CTA ran >= 6 steps (bench/results/2026-11-27-h100-occfix). The plan (tcw_slots)
# counts what the kernel holds, so the knob alone moves the plans.
# Predicted: k = 4 1.0-1.3x at M = 33..64 on the long shapes, unchanged on the short ones; k = 5 unknown (spills).
# Two builds side by side: main and mb (-DKBIT_TCW_MINB64=0x30). mb: kbit-verify --full over dense.tcw at
# M = 33, 64, 96, 128, then kbit-bench tcw and automatic_pdl over dense at M = 33, 48, 64, 96, 128, 192,
# 256, k = 4, 5, f16, arms in rotation, 2 reps. Pack first; carry .deps/sys.txz. Env: MB_BUDGET (585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/minb64" ${MB_BUDGET:-585}
device_build_knob_arms /tmp/mb "mb=-DKBIT_TCW_MINB64=0x30" || exit 1
gpu_info
V=(.deps/gpu/kbit-verify-mb --shapes "$R/data/shapes.json")
verify_run verify-mb 60 3 "mb verify --full dense.tcw M = 33, 64, 96, 128" --full \
  --kernels dense.tcw --filter '/M(33|64|96|128)/'
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw,automatic_pdl
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 33,48,64,96,128,192,256 --bits 4,5 --dtypes f16"
}
MIN_LEFT=20 REPS=2 bench_rotation minb64 main mb

# memcheck over the mb arm's 64-token cases (k = 5 spills) with what budget is left
verify_sanitize mb-m64 40 150 '/M64/' memcheck
rm -rf /tmp/mb-*/lib /tmp/mb-*/kernels 2>/dev/null; true
