#!/usr/bin/env bash
# Prepared in the forty-seventh session, not run (no device time left): the dense k = 2 pair table at M = 5..8.
# kTcvPairs2MaxM = 4 comes from the H100 (bench/results/2026-11-26-h100-tcvpairs2: 0.986x / 0.979x at M = 8 / 16). The
# k = 3 table, bounded the same way from H100 data, gained 1.10-1.16x at M = 5, 6 from 32 M weights on the H200
# (bench/results/2026-11-28-h200-s47k, -s47j) and lost at M = 8 and on 8-32 M. Predicted for k = 2: a gain at M = 5, 6
# on the large shapes (its 64-byte table costs less to stage than k = 3's), about 1.0x at M = 8.
# KBIT_TCV_PAIRS2_MAXM=8 (kernels/tcv.cu, dense only) extends the table; one binary for both arms.
#   1. kbit-verify --full over tcv at M = 5..8, k = 2, with the knob;
#   2. tcv_pdl, automatic_pdl and automatic over the dense block shapes at M = 5, 6, 8, k = 2, arms rule / m8 in
#      rotation, two reps. Read with bench/scripts/ab_dense.py DIR rule m8 tcv_pdl,automatic_pdl [MIN [MAX]].
# Build here (main), carry kbit-bench and kbit-verify stripped and xz -9'd as .deps/gpuz/bins.txz (bench/scripts/README).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s48k ${BUDGET:-150}
gpu_info
VENV="KBIT_TCV_PAIRS2_MAXM=8" verify_run verify-m8 60 4 "verify --full tcv --m 5..8 k = 2, KBIT_TCV_PAIRS2_MAXM=8" \
  --full --m 5,6,7,8 --filter /k2/ --kernels dense.tcv
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcv_pdl,automatic_pdl,automatic
  B="--M 5,6,8 --bits 2 --dtypes f16"
  [ "$1" = m8 ] && ENV="KBIT_TCV_PAIRS2_MAXM=8"
}
REPS=2 MIN_LEFT=10 bench_rotation s48k rule m8
