#!/usr/bin/env bash
# Twenty-fifth session: Qwen3-Coder-Next experts.down at M = 1 (10 routed rows, K = 512) on grouped_tcv
# instead of grouped_gemv at k = 2..4. The dispatch audit (bench/results/2026-11-27-h100-daudit/audit,
# grouped rows launched without PDL) had grouped_tcv 5.14 / 5.93 / 6.08 us against grouped_gemv's
# 5.31 / 5.94 / 6.23 at k = 2 / 3 / 4 (k = 5: 9.52 against 6.91); automatic_pdl ran grouped_gemv
# (4.76 / 5.30 / 5.65 / 6.33). Arm: -DKBIT_MOE_GEMV_SHORT_MIN_BITS=5 (the short-row rule keeps
# grouped_gemv at k = 5 only). Predicted: automatic_pdl 1.02-1.05x at k = 2, 4, ~1.0 at k = 3.
# One call: main and the arm built side by side; kbit-verify --quick --pdl over moe.automatic (arm);
# kbit-bench main / arm in rotation over the MoE catalogue (automatic_pdl; Qwen3, GLM; M = 1, 2; k = 2..5).
# Pack first; carry .deps/sys.txz. Env: MS_BUDGET (215 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/mshort ${MS_BUDGET:-215}
device_build_knob_arms /tmp/ms tcv5=-DKBIT_MOE_GEMV_SHORT_MIN_BITS=5 || exit 1
gpu_info
V=(.deps/gpu/kbit-verify-tcv5 --shapes "$R/data/shapes.json")
verify_run verify-tcv5 40 3 "verify --quick --pdl moe.automatic (tcv5)" --quick --pdl --kernels moe.automatic
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=automatic_pdl
  case $1 in tcv5) BIN=.deps/gpu/kbit-bench-tcv5 ;; esac
  B="--models qwen3-coder-next glm-4.7-flash --M 1,2 --bits 2,3,4,5 --dtypes f16"
}
BUDGET=$((BUDGET - 5)) MIN_LEFT=8 REPS=2 bench_rotation mshort main tcv5
