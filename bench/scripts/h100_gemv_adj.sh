#!/usr/bin/env bash
# gemv's k = 2 adjacent-pair table (a 128-byte float2 table indexed by codes of element pairs 2j, 2j + 1
# straight from the bit planes: block_adjacent_pairs2<8>; one PRMT address + one 8-byte load per two
# weights) against the float codebook (M = 1) and the interleaved pair table (M = 2..4), one call:
# GPU doctests twice (the landed rule, then KBIT_GEMV2_ARM=adj), compute-sanitizer memcheck and
# racecheck over the gemv pair-table and one-hot doctests, kbit-verify --quick on the k = 2 cases of
# gemv, tcv and automatic with adj, then kbit-bench in rotation: arm base (gemv and tcv, whose k = 2
# pair table is this build's) and arm adj (gemv), M = 1..4, k = 2, f16; with time left, ncu pipes of
# both gemv arms on Llama-3-70B gate_up M = 1. KBIT_GEMV2_ARM was a temporary switch in
# gemv_uses_pairs for these runs (adj: the adjacent pairs for every k = 2 gemv); main has no such
# switch. Env: ADJ_BUDGET (default 480 s), ADJ_REPS (default 3), ADJ_B (sweep flags).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gemvadj ${ADJ_BUDGET:-480}
gpu_info
if gpu_doctest kernels kbit_tests_kernels 100; then
  KBIT_GEMV2_ARM=adj gpu_doctest kernels-adj kbit_tests_kernels 100
  KBIT_GEMV2_ARM=adj doctest_sanitize memcheck "*pair tables*,*documented W*" 150 "(KBIT_GEMV2_ARM=adj)"
  KBIT_GEMV2_ARM=adj doctest_sanitize racecheck "*pair tables*" 150 "(KBIT_GEMV2_ARM=adj)"
fi
KBIT_GEMV2_ARM=adj timeout 150 "${V[@]}" --quick --kernels gemv,tcv,automatic --filter '/k2/' > "$W/verify.txt" 2>&1
s "verify --quick k2 gemv,tcv,automatic (KBIT_GEMV2_ARM=adj) rc=$? after $((SECONDS - T0)) s"; tail -7 "$W/verify.txt" | tee -a "$W/summary.txt"
B="${ADJ_B:---M 1,2,3,4 --bits 2 --dtypes f16}"
arm_setup() { KERNELS=gemv; ENV=KBIT_GEMV2_ARM=$1; [ "$1" = base ] && KERNELS=gemv,tcv; }
REPS=${ADJ_REPS:-3} MIN_LEFT=20 bench_rotation gemvadj base adj
ncu_pipe_arms 30 KBIT_GEMV2_ARM dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/gemv base adj
