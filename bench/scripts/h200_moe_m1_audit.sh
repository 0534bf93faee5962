#!/usr/bin/env bash
# MoE decode dispatch audit on the H200 (forty-third session; the second part of h200_prefill_audit2.sh, prepared in
# the fortieth session and not run until now): grouped_gemv_pdl and grouped_tcv_pdl beside automatic_pdl on the MoE
# projections of Qwen3-Coder-Next and GLM-4.7-Flash at 1 and 2 tokens, k = 2..5, f16, three reps (in
# -audit-s40's one rep grouped_gemv led Qwen3 experts.down at 1 token by 5.2-5.6% at k = 3, 4, where automatic takes
# grouped_tcv; on the H100 grouped_tcv led by 0-2%). main's kbit-bench (4b8d0de), carried.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/mm1 ${BUDGET:-150}
gpu_info
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_gemv_pdl,grouped_tcv_pdl,automatic_pdl
  B="--models qwen3-coder-next glm-4.7-flash --M 1,2 --bits 2,3,4,5 --dtypes f16"
}
REPS=3 MIN_LEFT=10 bench_rotation mm1 audit
