#!/usr/bin/env bash
# Forty-third session, landing call of the short-narrow-row rules from bench/results/2026-11-28-h200-shortrows/audit
# (gemv_short_narrow_fast: on GPUs of >= 4,500 GB/s peak DRAM bandwidth automatic keeps gemv on K <= 512, N <= 2048 at
# M = 2, k >= 3 under PDL and at M = 1, k = 2 without it). Main's tree with the rules, built here, binaries carried:
#   1. the whole GPU doctest binary (the dispatch expectations updated, one new dispatch doctest);
#   2. kbit-verify over automatic, plain and --pdl, f16 and bf16, on the moved cases (Qwen3-Coder-Next
#      shared_expert.down at M = 1, k = 2 and M = 2, k = 3..5); memcheck on two of them;
#   3. kbit-bench gemv, tcv, automatic, plain and PDL, on the two short-row shapes at M = 1, 2, k = 2..5, three reps.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/srl ${BUDGET:-150}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
C=dense/qwen3-coder-next.mlp.shared_expert.down/N2048.K512
verify_cases verify 60 $C/M1/k2 $C/M2/k3 $C/M2/k4 $C/M2/k5
grep -E "cases in" "$W/verify.txt" | sed 's/in [0-9.]* s/in _ s/' | sort | uniq -c | tee -a "$W/summary.txt"
sanitize_cases moved 90 memcheck $C/M1/k2/f16/automatic $C/M2/k5/bf16/automatic
rows_catalogue glm-4.7-flash.attn.kv_b_proj qwen3-coder-next.mlp.shared_expert.down
arm_setup() { KERNELS=gemv,tcv,automatic,gemv_pdl,tcv_pdl,automatic_pdl; B="--M 1,2 --bits 2,3,4,5 --dtypes f16"; }
REPS=3 MIN_LEFT=10 bench_rotation srl land
