#!/usr/bin/env bash
# Fortieth session: checks of the landed gemv rule on the H200 -- the k = 4 pair table kept on multi-wave grids at
# M = 1 from 4,500 GB/s of peak DRAM bandwidth (gemv_pairs_multiwave; bench/results/2026-11-28-h200-gemvptmw). No
# build: carries kbit_tests_kernels, kbit-verify and kbit-bench built here for sm_90a at REC_TAG, stripped, in
# .deps/gpu. Every GPU doctest (the new one prints the device's peak bandwidth and checks which launches took the
# table); kbit-verify over automatic and gemv on Llama-3-70B gate_up at M = 1, k = 4 (the moved case), f16 and bf16,
# plain and --pdl; compute-sanitizer memcheck and racecheck on that case (gemv, f16, no cuBLAS) and memcheck over the
# new doctest; kbit-bench automatic_pdl on Llama-3-70B at M = 1, k = 4, two reps. Move bench/results out for the call.
# Env: BUDGET (default 240 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init "$OUT/ptland" ${BUDGET:-240}
gpu_info
gpu_doctest kernels kbit_tests_kernels 90
grep -E "peak DRAM bandwidth" "$W/kernels.txt" | head -2 | tee -a "$W/summary.txt"
c=dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4
: > "$W/verify.txt"; vrc=0; n=0
for kern in automatic gemv; do
  for dt in f16 bf16; do
    for p in "" --pdl; do
      n=$((n + 1))
      timeout 60 "${V[@]}" $p --case "$c/$dt/$kern" >> "$W/verify.txt" 2>&1 || vrc=1
    done
  done
done
s "verify on $n runs of the moved case rc=$vrc after $((SECONDS - T0)) s: $(grep -c 'PASS$' "$W/verify.txt") PASS lines"
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 "${V[@]}" --no-cublas --no-rerun --case "$c/f16/gemv" \
    > "$W/$tool-case.txt" 2>&1
  s "$tool $c/f16/gemv rc=$? after $((SECONDS - T0)) s"; tail -2 "$W/$tool-case.txt" | tee -a "$W/summary.txt"
done
doctest_sanitize memcheck '*multi-wave grid*' 60
for rep in 1 2; do
  timeout -s INT 30 .deps/gpu/kbit-bench --shapes data/shapes.json --git-commit "${REC_TAG:-main}-ptland" \
    --models llama-3-70b --M 1 --bits 4 --dtypes f16,bf16 --kernels automatic_pdl \
    --json "$W/bench-$rep-ptland.json" > "$W/bench-$rep-ptland.txt" 2>&1
  s "bench $rep rc=$? after $((SECONDS - T0)) s"
done
