#!/usr/bin/env bash
# Forty-second session: KBIT_GEMV_BALANCE on by default where a one-wave early PDL grid at M = 1 leaves at least 3
# CTAs per SM (kGemvBalanceMinNeed; -h200-balance3: those grids won 1.06-1.08x, the 1-2 per SM ones were mixed). The
# whole GPU doctest binary; kbit-verify --full --pdl at M = 1, k = 2..5; kbit-bench gemv_pdl and automatic_pdl at
# M = 1, k = 2, f16 and bf16, off (KBIT_GEMV_BALANCE=0) / on (the default), three reps. Env: BUDGET (default 200 s).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/balanceland ${BUDGET:-200}
gpu_info
gpu_doctest kernels kbit_tests_kernels 150
verify_run verify-m1-pdl 150 3 "verify --full --pdl gemv,automatic M = 1" --full --pdl --kernels gemv,automatic \
  --filter '/M1/k[2-5]/'
dense_catalogue "$W/cat"
arm_setup() {
  KERNELS=gemv_pdl,automatic_pdl; B="--M 1 --bits 2 --dtypes f16,bf16"
  if [ "$1" = on ]; then ENV=KBIT_GEMV_BALANCE=1; else ENV=KBIT_GEMV_BALANCE=0; fi
}
RUN_MAX_S=30 REPS=3 MIN_LEFT=15 bench_rotation "${REC_TAG:-balanceland}" off on
