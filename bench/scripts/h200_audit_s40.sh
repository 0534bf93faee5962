#!/usr/bin/env bash
# Fortieth session, second call: the dispatch audit on the H200. Every dispatch bound in kernels/api.cu was drawn from
# H100 runs; this session's H200 record (bench/results/2026-11-28-h200-record-s40) shows the same kbit times as the
# H100 at M = 1 (the decode is issue-bound) while cuBLAS and the dequantize pass gain ~1.4x from the faster memory, so
# the crossovers may sit elsewhere here. No build: carries main's stripped kbit-bench in .deps/gpu (REC_TAG).
#   1. decode sizes: gemv_pdl, tcv_pdl, tcw_pdl beside automatic_pdl, the dense catalogue, M = 2, 3, 4, 6, 8, 12, 16,
#      k = 2..5 (as h100_audit_s38.sh; bench/scripts/pdl_kernels_table.py reads it);
#   2. MoE: grouped_gemv_pdl, grouped_tcv_pdl, grouped_tcw_pdl beside automatic_pdl on the MoE projections, M = 1, 2,
#      4, 8, 16, 32, 64, 128, 256, 512, 1024, k = 2..5;
#   3. prefill sizes: tcw_pdl and dequant_cublas beside automatic_pdl, the dense catalogue, M = 32, 64, 96, 128, 192,
#      256, 320, 384, 512, 1024, k = 2 and 4.
# Move bench/results out for the call. Env: BUDGET (default 470 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init "$OUT/aud" ${BUDGET:-470}
gpu_info
all=$BUDGET; BUDGET=$(( all - 260 ))  # at most BUDGET - 260 s for the decode audit
pdl_audit "${REC_TAG:-main}-decode" 1 60 --M 2,3,4,6,8,12,16 --bits 2,3,4,5 --dtypes f16
BUDGET=$all
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_gemv_pdl,grouped_tcv_pdl,grouped_tcw_pdl,automatic_pdl
  B="--models qwen3-coder-next,glm-4.7-flash --M 1,2,4,8,16,32,64,128,256,512,1024 --bits 2,3,4,5 --dtypes f16"
}
# At most 150 s for the MoE run, so that the prefill run keeps the rest.
all=$BUDGET; BUDGET=$(( SECONDS - T0 + 150 < all - 120 ? SECONDS - T0 + 150 : all - 120 ))
REPS=1 MIN_LEFT=30 bench_rotation "${REC_TAG:-main}" moe
BUDGET=$all
SHAPES=$R/data/shapes.json
arm_setup() { KERNELS=tcw_pdl,dequant_cublas,automatic_pdl; B="--M 32,64,96,128,192,256,320,384,512,1024 --bits 2,4 --dtypes f16"; }
REPS=1 MIN_LEFT=40 bench_rotation "${REC_TAG:-main}" prefill
