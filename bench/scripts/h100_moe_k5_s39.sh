#!/usr/bin/env bash
# Thirty-ninth session, last call (no build: carries build/tests/kbit_tests_kernels, build/apps/kbit-verify/kbit-verify
# and build/apps/kbit-bench/kbit-bench, built here for sm_90a at the commit given as REC_TAG): the MoE rule drawn from
# bench/results/2026-11-28-h100-moesmall-s39 -- grouped_gemv at k = 5 at 17..20 routed rows on rows of K >= 2048 (both
# experts.gate_up) -- checked: the MoE dispatch doctests; kbit-verify (plain and --pdl) over automatic on the two
# moved cases (Qwen3 experts.gate_up at M = 2, GLM experts.gate_up at M = 5, k = 5, f16 and bf16); kbit-bench
# grouped_gemv_pdl, grouped_tcv_pdl and automatic_pdl on the MoE projections at M = 2, 5, 6, k = 5, three reps.
set -u
source bench/scripts/lib/device_run.sh
device_run_init "$OUT/moek5" ${BUDGET:-150}
V=(build/apps/kbit-verify/kbit-verify --shapes "$R/data/shapes.json")
gpu_info
timeout 60 build/tests/kbit_tests_kernels -tc='*MoE dispatch*,*automatic*' > "$W/kernels.txt" 2>&1
s "MoE dispatch and automatic doctests rc=$? after $((SECONDS - T0)) s"; tail -3 "$W/kernels.txt" | tee -a "$W/summary.txt"
verify_cases verify 60 moe/qwen3-coder-next.mlp.experts.gate_up/E512.N1024.K2048.top10.realistic/T2/k5 \
  moe/glm-4.7-flash.mlp.experts.gate_up/E64.N3072.K2048.top4.realistic/T5/k5
moe_catalogue "$W/moe"
arm_setup() {
  BIN=build/apps/kbit-bench/kbit-bench; KERNELS=grouped_gemv_pdl,grouped_tcv_pdl,automatic_pdl
  B="--models qwen3-coder-next,glm-4.7-flash --M 2,5,6 --bits 5 --dtypes f16"
}
RUN_MAX_S=40 REPS=3 MIN_LEFT=10 bench_rotation "${REC_TAG:-main}" moek5
