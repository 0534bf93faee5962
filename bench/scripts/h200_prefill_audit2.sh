#!/usr/bin/env bash
# Prepared in the fortieth session, not yet run: the H200 leads of bench/results/2026-11-28-h200-audit-s40 measured
# again before any bound moves (that audit ran one rep, and a few rows there differed by up to 13% between
# automatic_pdl's tcw and tcw_pdl's own time).
#   1. Prefill: tcw_pdl and dequant_cublas beside automatic_pdl on the dense catalogue at M = 192, 256, 320, 384, 512,
#      1024, k = 2 and 4, two reps in rotation (32 of 527 rows were > 5% off in one rep, in both directions: e.g. Qwen3
#      k/v_proj at M = 256, k = 4, automatic_pdl 8.42 us on dequant_cublas against tcw_pdl's 6.79; GLM o_proj and
#      Qwen3 dense.down at M = 512 28.2-28.9 on tcw against dequant_cublas' 24.7-25.5). Read it with
#      bench/scripts/prefill_kernels_table.py on each JSON, or best of the two.
#   2. MoE at M = 1, k = 2..4: grouped_gemv_pdl against grouped_tcv_pdl beside automatic_pdl, three reps (on the H200
#      grouped_gemv led Qwen3 experts.down at M = 1 by 5.5% at k = 3 and 4 in one rep; on the H100 grouped_tcv led by
#      0-2%).
# No build: carry main's kbit-bench built here for sm_90a and stripped, as .deps/gpu/kbit-bench. Move bench/results
# out for the call. Env: BUDGET (default 500 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init "$OUT/pa2" ${BUDGET:-500}
gpu_info
all=$BUDGET; BUDGET=$(( all - 70 ))  # the prefill runs leave 70 s for the MoE runs
arm_setup() { KERNELS=tcw_pdl,dequant_cublas,automatic_pdl; B="--M 192,256,320,384,512,1024 --bits 2,4 --dtypes f16"; }
REPS=2 MIN_LEFT=40 bench_rotation "${REC_TAG:-main}" prefill
BUDGET=$all
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_gemv_pdl,grouped_tcv_pdl,automatic_pdl
  B="--models qwen3-coder-next,glm-4.7-flash --M 1 --bits 2,3,4 --dtypes f16"
}
REPS=3 MIN_LEFT=10 bench_rotation "${REC_TAG:-main}" moe1
for f in "$W"/bench-*-prefill.json; do
  python3 bench/scripts/prefill_kernels_table.py "$f" | tail -1 | sed "s|^|$(basename "$f"): |" | tee -a "$W/summary.txt"
done
