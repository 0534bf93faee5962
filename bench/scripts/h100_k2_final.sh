#!/usr/bin/env bash
# The landed k = 2 pair tables (tcv at M <= 4 with half_cb: the 64-byte half2 table of adjacent
# element pairs; gemv at M = 1: the 128-byte float2 table of adjacent pairs) and the k = 2 short-row
# dispatch rule, one call: GPU doctests (kernels + format), compute-sanitizer memcheck over the
# pair-table, one-hot, dense-equality, split-K and random-bytes doctests and racecheck over the
# pair-table and one-hot ones, kbit-verify --quick (gemv, tcv, automatic) and --full on the large
# k = 2 shapes (Llama-3-70B, Llama-3-8B mlp, GLM shared_experts) at M = 1, 4; then two records,
# FINAL_REPS times each (default 1): `k2` (gemv, tcv, automatic, automatic_pdl at M = 1, 2, 3, 4, 8,
# 16, k = 2: the dispatch audit of the new rules) and `all` (automatic, automatic_pdl, gemv at
# M = 1, 2, 4, k = 2..5: the closing record). Env: FINAL_BUDGET (default 480 s), FINAL_REPS.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/k2final ${FINAL_BUDGET:-480}
doctest_checks 100 '*pair tables*,*documented W*,*dense kernels equal*,*split-K equal*,*random bytes stay*' 150 '*pair tables*,*documented W*' 150
verify_run verify 150 8 "verify --quick gemv,tcv,automatic" --quick --kernels gemv,tcv,automatic
verify_run verify-large 120 7 "verify --full gemv,tcv,automatic k=2 M=1,4 Llama + GLM shared_experts shapes" --full --kernels gemv,tcv,automatic --filter '(llama-3-70b|llama-3-8b.mlp|shared_experts).*/M[14]/k2/'
arm_setup() {
  if [ "$1" = k2 ]; then B="--M 1,2,3,4,8,16 --bits 2 --dtypes f16"; KERNELS=gemv,tcv,automatic,automatic_pdl
  else B="--M 1,2,4 --bits 2,3,4,5 --dtypes f16"; KERNELS=automatic,automatic_pdl,gemv; fi
}
REPS=${FINAL_REPS:-1} MIN_LEFT=20 bench_rotation k2-final k2 all
