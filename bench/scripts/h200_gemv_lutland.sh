#!/usr/bin/env bash
# Forty-second session: the check and dispatch audit of KBIT_GEMV_LUT on by default (gemv's activation-sum tables at
# M = 1, k = 2; -h200-lut had them 1.116x over main in gemv_pdl). The whole GPU doctest binary; memcheck and racecheck
# over the LUT doctest; kbit-verify --full over gemv and automatic at M = 1, k = 2 (every catalogue and random shape,
# f16 and bf16), without and with --pdl; then kbit-bench at M = 1, k = 2 over the dense catalogue with gemv, tcv and
# automatic, each plain and under PDL, in two arms: main (KBIT_GEMV_LUT=0: main's decode and dispatch) and lut (the
# default), three reps in rotation. Build this tree here, strip the three binaries, gzip them into .deps/gpuz/bins.tgz,
# carry .deps/gpuz and untar it first. Env: BUDGET (default 420 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/lutland ${BUDGET:-420}
gpu_info
lut_checks
dense_catalogue "$W/cat"
arm_setup() {
  KERNELS=gemv,gemv_pdl,tcv,tcv_pdl,automatic,automatic_pdl; B="--M 1 --bits 2 --dtypes f16,bf16"
  if [ "$1" = main ]; then ENV=KBIT_GEMV_LUT=0; else ENV=KBIT_GEMV_LUT=1; fi
}
RUN_MAX_S=60 REPS=3 MIN_LEFT=20 bench_rotation "${REC_TAG:-lutland}" main lut
