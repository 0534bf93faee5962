#!/usr/bin/env bash
# Thirty-ninth session, last call (no build: carries build/apps/kbit-bench/kbit-bench, built here for sm_90a at the
# commit given as REC_TAG): the MoE decode crossover between grouped_gemv and grouped_tcv at few routed rows, which the
# MoE audit of bench/results/2026-11-28-h100-final2-s39 left as a lead (Qwen3 experts.gate_up at M = 2, k = 5:
# grouped_gemv_pdl 15.93 us against grouped_tcv_pdl's 19.10, automatic_pdl ran grouped_tcv). kbit-bench
# grouped_gemv_pdl, grouped_tcv_pdl and automatic_pdl on the MoE projections of Qwen3-Coder-Next and GLM-4.7-Flash at
# M = 1..6, k = 2..5, f16, REPS reps (default 3). Carry build/apps/kbit-bench/kbit-bench. Results in run.tar.gz.
set -u
source bench/scripts/lib/device_run.sh
device_run_init "$OUT/moesmall" ${BUDGET:-400}
moe_catalogue "$W/moe"
gpu_info
for rep in $(seq ${REPS:-3}); do
  timeout -s INT 150 build/apps/kbit-bench/kbit-bench --shapes "$SHAPES" --git-commit "${REC_TAG:-main}-moe" \
    --models qwen3-coder-next,glm-4.7-flash --M 1,2,3,4,5,6 --bits 2,3,4,5 --dtypes f16 \
    --kernels grouped_gemv_pdl,grouped_tcv_pdl,automatic_pdl --json "$W/bench-$rep-moe.json" > "$W/bench-$rep-moe.txt" 2>&1
  s "bench $rep rc=$? after $((SECONDS - T0)) s"
done
