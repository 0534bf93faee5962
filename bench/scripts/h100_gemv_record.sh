#!/usr/bin/env bash
# The gemv record on an H100 after the leaner step loop (2026-11-26): the GPU doctests, then
# kbit-bench automatic, automatic_pdl and gemv on every catalogue shape at M = 1, 2, 4, k = 2..5,
# f16 (the M = 1 bandwidth target reads pct_bw of these rows), then ncu of gemv at Llama-3-70B
# gate_up M = 1, k = 4 with time left. Binaries in .deps/gpu (this build's).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gemvrec ${REC_BUDGET:-420}
gpu_info
gpu_doctest kernels kbit_tests_kernels 60
B="--M 1,2,4 --bits 2,3,4,5 --dtypes f16"
arm_setup() { KERNELS=automatic,automatic_pdl,gemv; }
REPS=1 MIN_LEFT=20 bench_rotation gemvrec record
l=$(left)
if [ "$l" -gt 40 ]; then
  OUT=$W timeout $((l - 5)) bash bench/scripts/h100_ncu_profile.sh "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/gemv" \
    > "$W/ncu.log" 2>&1
  s "ncu rc=$? after $((SECONDS - T0)) s"
fi
