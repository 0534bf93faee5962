#!/usr/bin/env bash
# Prepared in the forty-third session (its device time was spent) and run as the forty-fourth session's first call on
# main 0ac9ccc (bench/results/2026-11-28-h200-final-s43). Forty-third session, last call (main after a review narrowed the MoE rule to one row per expert, gated the q_proj
# rule to the H200 and moved gemv_balance_resident onto the launch path's per-SM count; built here, carried):
#   1. the whole GPU doctest binary; memcheck over the balance doctest;
#   2. the plain (non-PDL) A/B the MoE rule lacked: grouped_gemv, grouped_tcv and automatic on Qwen3-Coder-Next's
#      experts at one token, k = 3, 4, f16, three reps.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/fin ${BUDGET:-120}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
doctest_sanitize memcheck '*balance*' 60
moe_catalogue "$W/moe"
arm_setup() { KERNELS=grouped_gemv,grouped_tcv,automatic; B="--models qwen3-coder-next --M 1 --bits 3,4 --dtypes f16"; }
REPS=3 MIN_LEFT=5 bench_rotation fin plain
