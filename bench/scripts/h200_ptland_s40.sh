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
VKERNELS="automatic gemv" verify_cases verify 60 "$c"
sanitize_cases case 90 "memcheck racecheck" "$c/f16/gemv"
doctest_sanitize memcheck '*multi-wave grid*' 60
arm_setup() { KERNELS=automatic_pdl; B="--models llama-3-70b --M 1 --bits 4 --dtypes f16,bf16"; }
RUN_MAX_S=30 REPS=2 MIN_LEFT=10 bench_rotation "${REC_TAG:-main}" ptland
