#!/usr/bin/env bash
# The landed gemv pair table (k = 4, from kGemvPairsMinWeights; at M = 1 only on one-wave grids),
# one call: GPU doctests (kernels + format), compute-sanitizer memcheck over the gemv doctests
# (pair table forced and by rule) and racecheck over the pair-table one, kbit-verify --quick on gemv
# + automatic, then a record of gemv, tcv, automatic and automatic_pdl at M = 1..4, k = 4, f16 on
# every catalogue shape, FINAL_REPS times (default 2), for the dispatch rules (tcv at M = 2 from 100 M
# to 400 M weights) and the README. Env: FINAL_B (sweep flags), FINAL_KERNELS, FINAL_BUDGET (default
# 420 s). Also the session's closing record (FINAL_B="--M 1,2,4 --bits 2,3,4,5 --dtypes f16", kernels
# automatic, automatic_pdl, gemv: bench/results/2026-11-26-h100-record-s13).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gemvpairsfinal ${FINAL_BUDGET:-420}
gpu_info
gpu_doctest format kbit_tests_gpu 30
if gpu_doctest kernels kbit_tests_kernels 90; then
  for tool in memcheck racecheck; do
    f='*pair table*,*dense kernels equal*,*split-K equal*,*random bytes stay*'
    [ $tool = racecheck ] && f='*pair table*'
    doctest_sanitize $tool "$f" 150
  done
fi
if [ -x .deps/gpu/kbit-verify ]; then
  timeout 120 "${V[@]}" --quick --kernels gemv,automatic > "$W/verify.txt" 2>&1
  s "verify --quick gemv,automatic rc=$? after $((SECONDS - T0)) s"; tail -8 "$W/verify.txt" | tee -a "$W/summary.txt"
  # the pair table on the catalogue's large shapes, verified (one case each, M = 1 and 4, f16 and bf16)
  timeout 120 "${V[@]}" --full --kernels gemv --filter '(llama-3-70b|llama-3-8b.mlp|shared_experts).*/M[14]/k4/' > "$W/verify-large.txt" 2>&1
  s "verify --full gemv k=4 M=1,4 Llama + GLM shared_experts shapes rc=$? after $((SECONDS - T0)) s"; tail -6 "$W/verify-large.txt" | tee -a "$W/summary.txt"
fi
B="${FINAL_B:---M 1,2,3,4 --bits 4 --dtypes f16}"
arm_setup() { KERNELS=${FINAL_KERNELS:-gemv,tcv,automatic,automatic_pdl}; }
REPS=${FINAL_REPS:-2} MIN_LEFT=20 bench_rotation gemvpairs-final record
