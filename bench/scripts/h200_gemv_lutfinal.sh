#!/usr/bin/env bash
# Forty-second session: the final check of gemv's activation-sum tables (M = 1, k = 2) with their size rule
# (kGemvLutMinWeights) and automatic's M = 1, k = 2 rule (gemv from 16 M weights under PDL, from 8 M without). The
# whole GPU doctest binary; memcheck and racecheck over the LUT doctest; kbit-verify --full over gemv and automatic at
# M = 1, k = 2, without and with --pdl; kbit-bench at M = 1, k = 2 over the dense catalogue with gemv and automatic,
# plain and under PDL, main (KBIT_GEMV_LUT=0: main's decode and dispatch) against lut (the default), three reps. Build
# here, strip, gzip the three binaries into .deps/gpuz/bins.tgz, carry .deps/gpuz. Env: BUDGET (default 300 s).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/lutfinal ${BUDGET:-300}
gpu_info
lut_checks
dense_catalogue "$W/cat"
arm_setup() {
  KERNELS=gemv,gemv_pdl,automatic,automatic_pdl; B="--M 1 --bits 2 --dtypes f16,bf16"
  if [ "$1" = main ]; then ENV=KBIT_GEMV_LUT=0; else ENV=KBIT_GEMV_LUT=1; fi
}
RUN_MAX_S=45 REPS=3 MIN_LEFT=20 bench_rotation "${REC_TAG:-lutfinal}" main lut
