#!/usr/bin/env bash
# Forty-seventh session: plain launches at M = 32..128, where the plain rules (kernels/api.cu: tcw to M = 64 but short
# narrow rows, 65..128 from 4 M weights, else dequant_cublas or mma) come from the H100's -ldisp (2026-11-27). At
# M = 3..16 plain tcw was 1.03-1.9x behind tcv on the H200 (-s47x, -s47n): its three launches serialize without PDL.
# Here its rival is dequantize + cuBLAS. kbit-bench tcw, dequant_cublas and automatic, all launched plainly, over the
# dense block shapes at M = 32, 64, 128, k = 2, 4, f16, one rep: a measurement for the next session's rule.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s47r ${BUDGET:-120}
gpu_info
dense_catalogue "$W/dense"
arm_setup() { B="--M 32,64,128 --bits 2,4 --dtypes f16"; KERNELS=tcw,dequant_cublas,automatic; }
REPS=1 MIN_LEFT=10 bench_rotation s47r main
