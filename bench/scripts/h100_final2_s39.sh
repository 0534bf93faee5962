#!/usr/bin/env bash
# Thirty-ninth session, second check: the Qwen3 o_proj rule drawn from the Qwen3/GLM audit in -final-s39 (under
# PDL, tcv's wide cluster grids of narrow rows -- Qwen3 o_proj and linear_attn.out_proj, 2048 x 4096 -- keep tcv at
# M = 9..15 at k = 3 too), as landed in kernels/api.cu. One build of main; the PDL dispatch doctests and the
# automatic ones; kbit-verify --pdl over automatic on moved cases by name (f16, bf16); kbit-bench automatic_pdl beside
# gemv_pdl, tcv_pdl and tcw_pdl on those two shapes at M = 9..16, k = 2..5, two reps (table-qo.txt). Then, while the
# budget lasts, a MoE audit for the next session: grouped_gemv_pdl, grouped_tcv_pdl and grouped_tcw_pdl beside
# automatic_pdl on the MoE projections of Qwen3-Coder-Next and GLM-4.7-Flash at M = 1, 2, 4, 8, 12, 16, k = 2..5, one
# rep (moe_catalogue: only the shapes with experts > 1).
# Pack first; carry .deps/sys.txz; move bench/results out. Env: BUDGET (default 530 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/fin2" ${BUDGET:-530}
device_build_new /tmp/fin2 kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*with PDL*,*automatic*' 150 'dispatch and automatic doctests'
Q=dense/qwen3-coder-next
verify_moved 60 $Q.attn.o_proj/N2048.K4096/M9/k3 $Q.attn.o_proj/N2048.K4096/M12/k3 $Q.attn.o_proj/N2048.K4096/M15/k3 \
  $Q.linear_attn.out_proj/N2048.K4096/M10/k3 $Q.linear_attn.out_proj/N2048.K4096/M13/k3
rows_catalogue qwen3-coder-next.attn.o_proj qwen3-coder-next.linear_attn.out_proj
pdl_audit "${REC_TAG:-main}-qo" 2 30 --models qwen3-coder-next --M 9,10,11,12,13,14,15,16 --bits 2,3,4,5 --dtypes f16
mv "$W/table.txt" "$W/table-qo.txt"
moe_catalogue "$W/moe"
arm_setup() {
  B="--models qwen3-coder-next,glm-4.7-flash --M 1,2,4,8,12,16 --bits 2,3,4,5 --dtypes f16"
  KERNELS=grouped_gemv_pdl,grouped_tcv_pdl,grouped_tcw_pdl,automatic_pdl
}
REPS=1 MIN_LEFT=60 bench_rotation "${REC_TAG:-main}" moe
