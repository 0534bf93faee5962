#!/usr/bin/env bash
# Forty-first session: gemv against tcv at M = 1 on the H200 (the decode audit there began at M = 2). kbit-bench gemv,
# tcv, gemv_pdl and tcv_pdl over the dense catalogue at M = 1, k = 2, 3, 4, f16, two reps. Ran with the probe build of
# h200_gemv_probe.sh (.deps/probe/kbit-bench, KBIT_GEMV_PROBE_ON=0: main's dispatch and kernels, gemv's loop with the
# probe's dead branch); main's kbit-bench serves as well. Move bench/results out for the call. Env: BUDGET, REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/tcvm1 ${BUDGET:-120}
gpu_info
dense_catalogue "$W/cat"
arm_setup() { BIN=.deps/probe/kbit-bench; KERNELS=gemv_pdl,tcv_pdl,gemv,tcv; B="--M 1 --bits 2,3,4 --dtypes f16"; ENV=KBIT_GEMV_PROBE_ON=0; }
RUN_MAX_S=50 REPS=2 MIN_LEFT=10 bench_rotation "${REC_TAG:-exp}" m1
