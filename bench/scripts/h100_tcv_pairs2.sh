#!/usr/bin/env bash
# tcv's k = 2 pair table (adjacent element pairs, a 64-byte half2 table: PRMT + LDS + HMUL2 per two
# weights, B registers straight from the activation words) against the k = 2 byte tables, one call:
# GPU doctests, compute-sanitizer memcheck and racecheck over the one-hot decode doctest (k = 2 and
# 4) and the dense equality doctests, kbit-verify --quick on the k = 2 cases of tcv and automatic,
# then kbit-bench in rotation: arm p2 (tcv on the pair table) and arm bt (tcv on the byte tables, and
# gemv: dispatch's M = 1..2 kernel at k = 2), M = 1..16, k = 2, f16; with time left, ncu pipes of both
# tcv arms on Llama-3-70B gate_up M = 1. KBIT_TCV2_ARM was a temporary switch in tcv_uses_pairs for
# these runs (bt: byte tables); main has no such switch. Env: P2_BUDGET (default 500 s), P2_REPS
# (default 2), P2_B (sweep flags).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/tcvpairs2 ${P2_BUDGET:-500}
doctest_checks 100 '*documented W*,*dense kernels equal*,*split-K*' 150 '*documented W*' 120
verify_run verify 150 6 "verify --quick k2 tcv,automatic" --quick --kernels tcv,automatic --filter '/k2/'
B="${P2_B:---M 1,2,4,8,16 --bits 2 --dtypes f16}"
arm_setup() { KERNELS=tcv; ENV=KBIT_TCV2_ARM=$1; [ "$1" = bt ] && KERNELS=tcv,gemv; }
REPS=${P2_REPS:-2} MIN_LEFT=20 bench_rotation tcvpairs2 p2 bt
ncu_pipe_arms 40 KBIT_TCV2_ARM dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/tcv p2 bt
