#!/usr/bin/env bash
# The k = 3 gemv pair table on multi-wave M = 1 grids (the one-wave rule now k = 4 only), landed build,
# one call: GPU doctests, compute-sanitizer memcheck and racecheck over the gemv pair-table doctest,
# kbit-verify --full on Llama-3-70B gate_up at k = 3, M = 1 (gemv, automatic: the multi-wave grid) and
# --quick on the k = 3 cases of gemv and automatic, then kbit-bench of gemv and automatic at M = 1,
# k = 3, f16 on every catalogue shape (LAND_REPS runs, default 2). Env: LAND_BUDGET (default 240 s).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/k3land ${LAND_BUDGET:-240}
gpu_info
if gpu_doctest kernels kbit_tests_kernels 100; then
  doctest_sanitize memcheck '*pair tables*' 120
  doctest_sanitize racecheck '*pair tables*' 120
fi
timeout 90 "${V[@]}" --full --kernels gemv,automatic --filter 'llama-3-70b.mlp.gate_up.*/M1/k3/' > "$W/verify-large.txt" 2>&1
s "verify --full gemv,automatic Llama-3-70B gate_up M=1 k=3 rc=$? after $((SECONDS - T0)) s"; tail -6 "$W/verify-large.txt" | tee -a "$W/summary.txt"
timeout 90 "${V[@]}" --quick --kernels gemv,automatic --filter '/k3/' > "$W/verify.txt" 2>&1
s "verify --quick gemv,automatic k=3 rc=$? after $((SECONDS - T0)) s"; tail -6 "$W/verify.txt" | tee -a "$W/summary.txt"
B="--M 1 --bits 3 --dtypes f16"
arm_setup() { KERNELS=gemv,automatic; }
REPS=${LAND_REPS:-2} MIN_LEFT=15 bench_rotation k3land record
