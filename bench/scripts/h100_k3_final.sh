#!/usr/bin/env bash
# The landed k = 3 pair table (grouped_tcv always, the dense tcv from 32 M weights at M <= 4, both with
# half_cb), one call: GPU doctests, compute-sanitizer memcheck and racecheck over the one-hot decode
# doctests (dense and grouped) and memcheck over the MoE equality doctest, kbit-verify --quick
# (grouped_tcv, tcv, automatic) and --full on the large k = 3 shapes (Llama-3-70B, Llama-3-8B mlp, GLM
# shared_experts) at M = 1 and 4, then kbit-bench `all` (automatic, automatic_pdl, gemv, tcv,
# grouped_tcv at M = 1, 2, 4, k = 2..5: the closing record, with the block TOTAL rows and the dispatch
# audit). Env: FINAL_BUDGET (default 480 s).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/k3final ${FINAL_BUDGET:-480}
doctest_checks 120 '*documented W*,*moe_weight_roundings*,*MoE kernels equal*' 200 '*documented W*,*moe_weight_roundings*' 150
verify_run verify 150 8 "verify --quick grouped_tcv,tcv,automatic" --quick --kernels grouped_tcv,tcv,automatic
verify_run verify-large 120 6 "verify --full tcv,automatic k=3 M=1,4 Llama + GLM shared_experts shapes" --full --kernels tcv,automatic --filter '(llama-3-70b|llama-3-8b.mlp|shared_experts).*/M[14]/k3/'
arm_setup() { B="--M 1,2,4 --bits 2,3,4,5 --dtypes f16"; KERNELS=automatic,automatic_pdl,gemv,tcv,grouped_tcv; }
REPS=1 MIN_LEFT=20 bench_rotation k3-final all
