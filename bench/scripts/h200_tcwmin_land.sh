#!/usr/bin/env bash
# Forty-fourth session, landing call of moe_tcw_min_mean (lib/kbit/moe_sched.h): automatic takes grouped_tcw from 6
# mean rows at k = 4 on the pair table (8 before; bench/results/2026-11-28-h200-gtcwmn64/final). Built here, carried:
#   1. the whole GPU doctest binary (a new dispatch doctest at 4..9 mean rows);
#   2. kbit-verify over automatic, plain and --pdl, f16 and bf16, on the moved cases (GLM-4.7-Flash experts at 96
#      tokens, Qwen3-Coder-Next experts at 320, k = 4); memcheck on one;
#   3. kbit-bench automatic, automatic_pdl, grouped_tcv and grouped_tcw on those rows, k = 4, f16, two reps.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/tml ${BUDGET:-240}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
G=moe/glm-4.7-flash.mlp.experts Q=moe/qwen3-coder-next.mlp.experts
verify_cases verify 60 $G.gate_up/E64.N3072.K2048.top4.realistic/T96/k4 $G.down/E64.N2048.K1536.top4.realistic/T96/k4 \
  $Q.gate_up/E512.N1024.K2048.top10.realistic/T320/k4 $Q.down/E512.N2048.K512.top10.realistic/T320/k4
grep -E "cases in" "$W/verify.txt" | sed 's/in [0-9.]* s/in _ s/' | sort | uniq -c | tee -a "$W/summary.txt"
sanitize_cases moved 90 memcheck $G.down/E64.N2048.K1536.top4.realistic/T96/k4/f16/automatic
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=automatic,automatic_pdl,grouped_tcv,grouped_tcw
  case $1 in
    q) B="--models qwen3-coder-next --M 320 --bits 4 --dtypes f16" ;;
    g) B="--models glm-4.7-flash --M 96 --bits 4 --dtypes f16" ;;
  esac
}
REPS=2 MIN_LEFT=10 bench_rotation tml q g
