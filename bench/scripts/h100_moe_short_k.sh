#!/usr/bin/env bash
# grouped_gemv against grouped_tcv on the MoE projections at decode sizes (M = 1..4 tokens, k = 2..5,
# f16, two runs), with automatic beside them: does dispatch's short-row rule (K <= 512 and <= 24 routed
# rows -> grouped_gemv) still hold now that grouped_tcv decodes k = 2..4 by pair tables? Binaries in
# .deps/gpu. Env: MSK_BUDGET (default 240 s).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/moeshortk ${MSK_BUDGET:-240}
gpu_info
moe_catalogue "$W/moe"
B="--models qwen3-coder-next glm-4.7-flash --M 1,2,3,4 --bits 2,3,4,5 --dtypes f16"
arm_setup() { KERNELS=grouped_gemv,grouped_tcv,automatic; }
REPS=2 MIN_LEFT=20 bench_rotation moe-short-k run
