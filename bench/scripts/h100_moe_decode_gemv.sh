#!/usr/bin/env bash
# MoE decode after gemv's leaner step loop: grouped_gemv against grouped_tcv (automatic's choice
# for K > 512 or more than 24 routed rows) on the Qwen3-Coder-Next and GLM-4.7-Flash experts at
# M = 1..16 tokens, k = 2..5, f16, two repeats; automatic and automatic_pdl beside them. The H200
# record of 2026-11-26 had grouped_gemv ahead on GLM experts at 8-16 routed rows. Binaries in
# .deps/gpu (this build's).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/moegemv ${MOE_BUDGET:-300}
gpu_info
moe_catalogue "$W/moe"
B="--models qwen3-coder-next glm-4.7-flash --M 1,2,3,4,6,8,12,16 --bits 2,3,4,5 --dtypes f16"
arm_setup() { KERNELS=automatic,automatic_pdl,grouped_gemv,grouped_tcv; }
REPS=2 MIN_LEFT=20 bench_rotation moegemv decode
