#!/usr/bin/env bash
# Forty-seventh session: the dense k = 3 pair table at M = 5..8 (KBIT_TCV_PAIRS3_MAXM=8, kernels/tcv.cu; the table
# serves M <= kTcvPairs3MaxM = 4 since the H100 measured 0.92-0.97x at M = 8 on the k = 4 table's first rows, before
# the adjacent-pair table). On the H200 the adjacent table gained 1.086x / 1.037x at M = 2 / 4 on 8-32 M weights
# (-s47p); predicted ~1.0x at M = 8, a small gain at M = 5, 6. kbit-verify tcv at M = 5..8 with the knob, then tcv_pdl
# and automatic_pdl over the dense block shapes at M = 5, 6, 8, k = 3, arms rule / m8 in rotation, two reps.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s47k ${BUDGET:-120}
gpu_info
VENV="KBIT_TCV_PAIRS3_MAXM=8" verify_run verify-m8 60 4 "verify --full tcv --m 5..8 k = 3, KBIT_TCV_PAIRS3_MAXM=8" \
  --full --m 5,6,7,8 --filter /k3/ --kernels dense.tcv
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcv_pdl,automatic_pdl
  B="--M 5,6,8 --bits 3 --dtypes f16"
  [ "$1" = m8 ] && ENV="KBIT_TCV_PAIRS3_MAXM=8"
}
REPS=2 MIN_LEFT=10 bench_rotation s47k rule m8
