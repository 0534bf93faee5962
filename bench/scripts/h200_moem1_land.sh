#!/usr/bin/env bash
# Forty-third session, landing call of the MoE rule from bench/results/2026-11-28-h200-moem1/audit: on GPUs of >= 4,500
# GB/s peak DRAM bandwidth (the H200) automatic keeps grouped_gemv at k = 3, 4 on short expert rows (K <= 512) up to 10
# routed rows (moe_gemv_short_fast). Main's tree with the rule, built here, binaries carried:
#   1. the whole GPU doctest binary (the MoE dispatch expectations updated);
#   2. kbit-verify over automatic and grouped_gemv, plain and --pdl, f16 and bf16, on the moved cases (Qwen3-Coder-Next
#      experts.down at 1 token, k = 3, 4); memcheck on them;
#   3. kbit-bench automatic_pdl, automatic, grouped_gemv_pdl, grouped_tcv_pdl on Qwen3 experts at 1-2 tokens, k = 2..5,
#      f16, three reps.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/mml ${BUDGET:-200}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
C=moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T1
VKERNELS="automatic grouped_gemv" verify_cases verify 60 $C/k3 $C/k4
grep -E "cases in" "$W/verify.txt" | sed 's/in [0-9.]* s/in _ s/' | sort | uniq -c | tee -a "$W/summary.txt"
sanitize_cases moved 90 memcheck $C/k3/f16/automatic $C/k4/bf16/automatic
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=automatic_pdl,automatic,grouped_gemv_pdl,grouped_tcv_pdl
  B="--models qwen3-coder-next --M 1,2 --bits 2,3,4,5 --dtypes f16"
}
REPS=3 MIN_LEFT=10 bench_rotation mml land
