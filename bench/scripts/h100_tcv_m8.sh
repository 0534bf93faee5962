#!/usr/bin/env bash
# tcv against tcw at M = 5..8 under PDL, every width, after tcv's early launches and out-of-line
# fixup (bench/results/2026-11-26-h100-tcvearly): in its landing call tcv_pdl beat tcw_pdl at M = 8,
# k = 2 on multi-wave split grids (Llama-3-70B q/o_proj 20.05 against 23.24 us, Llama-3-8B down
# 18.03 against 21.12) where dispatch gives M = 5..8 to tcw, and lost at k = 4. This tree built on the
# GPU machine (pack first with bash bench/scripts/pack_device_build.sh), then one kbit-bench run:
# automatic_pdl, tcv_pdl and tcw_pdl over Qwen3-Coder-Next, GLM-4.7-Flash, Llama-3-8B and Llama-3-70B
# at M = 5, 6, 8, k = 2..5. Env: TM_BUDGET (default 300 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvm8 ${TM_BUDGET:-300}
device_build_new /tmp/tmnew kbit-bench || exit 1
gpu_info
arm_setup() {
  KERNELS=automatic_pdl,tcv_pdl,tcw_pdl
  B="--M 5,6,8 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-8b llama-3-70b"
}
BUDGET=$((BUDGET - 5)) MIN_LEFT=20 REPS=1 bench_rotation tcvm8 main
