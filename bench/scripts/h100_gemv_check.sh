#!/usr/bin/env bash
# Checks of the committed build after the dispatch changes of 2026-11-26: format and kernel GPU
# doctests, kbit-verify --quick on automatic (dense and MoE), and kbit-bench automatic / gemv / tcv
# at M = 1, 2 on the Llama shapes, k = 4, where the M = 2 line moved (58.7 M and 67 M weights now
# on gemv). Binaries in .deps/gpu (this build's).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gemvchk ${CHK_BUDGET:-300}
gpu_info
gpu_doctest format kbit_tests_gpu 30
gpu_doctest kernels kbit_tests_kernels 60
timeout 120 "${V[@]}" --quick --kernels automatic > "$W/verify.txt" 2>&1
s "verify --quick automatic rc=$? after $((SECONDS - T0)) s"; tail -5 "$W/verify.txt" | tee -a "$W/summary.txt"
B="${CHK_B:---models llama-3-8b llama-3-70b --M 1,2 --bits 4 --dtypes f16}"
arm_setup() { KERNELS=automatic,gemv,tcv; }
REPS=2 MIN_LEFT=20 bench_rotation gemvchk check
