#!/usr/bin/env bash
# Thirty-ninth session: the dispatch rules drawn from the leads run (bench/results/2026-11-28-h100-leads-s39, every
# M = 9..16 on Llama-3-8B and Llama-3-70B, k = 2, 3, 5) as landed in kernels/api.cu, under PDL:
# - Llama-3-70B q/o_proj (unsplit one-wave tcv grids of 32..100 M weights, K >= 8192): tcv at k = 2, 3 up to M = 15
#   (was 12), and at M = 9, k = 5;
# - Llama-3-70B k/v_proj (8-slice grids of 2 steps per warp): tcv at k = 3 to M = 12, at k = 2 to M = 10;
# - Llama-3-8B q/o_proj (2-slice grids) and k/v_proj (< 8 M weights): tcw at M = 15, 16, k = 2 and M = 16, k = 3;
# - from 100 M weights on rows of N >= 16384 (Llama-3-8B and Llama-3-70B gate_up): tcv at M = 9, 10, k = 3, 5.
# One build of main; the PDL dispatch doctests (their new checks) and the automatic ones; kbit-verify --pdl over
# automatic on every moved case by name (f16, bf16); then one kbit-bench run of automatic_pdl beside gemv_pdl,
# tcv_pdl and tcw_pdl on both models at M = 9..16, k = 2..5, two reps (pdl_kernels_table.py: automatic_pdl should
# run the fastest kernel's time on the moved rows, and k = 4 should not move), table-moved.txt; then, while the
# budget lasts, the same four kernels on Qwen3-Coder-Next and GLM-4.7-Flash at the M the last audit skipped (5, 7,
# 9..11, 13..15), k = 2..5, one rep (table-qg.txt): leads for a next round, not a check.
# Pack first; carry .deps/sys.txz; move bench/results out. Env: BUDGET (default 540 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/fin" 540
device_build_new /tmp/fin kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*with PDL*,*automatic*' 150 'dispatch and automatic doctests'
verify_moved 90 dense/llama-3-70b.attn.q_proj/N8192.K8192/M13/k2 dense/llama-3-70b.attn.q_proj/N8192.K8192/M15/k3 \
  dense/llama-3-70b.attn.o_proj/N8192.K8192/M14/k3 dense/llama-3-70b.attn.o_proj/N8192.K8192/M15/k2 \
  dense/llama-3-70b.attn.q_proj/N8192.K8192/M9/k5 dense/llama-3-70b.attn.o_proj/N8192.K8192/M9/k5 \
  dense/llama-3-70b.attn.k_proj/N1024.K8192/M12/k3 dense/llama-3-70b.attn.v_proj/N1024.K8192/M10/k2 \
  dense/llama-3-8b.attn.q_proj/N4096.K4096/M15/k2 dense/llama-3-8b.attn.o_proj/N4096.K4096/M16/k3 \
  dense/llama-3-8b.attn.k_proj/N1024.K4096/M16/k2 dense/llama-3-8b.attn.v_proj/N1024.K4096/M16/k3 \
  dense/llama-3-8b.mlp.gate_up/N28672.K4096/M9/k3 dense/llama-3-8b.mlp.gate_up/N28672.K4096/M10/k5 \
  dense/llama-3-70b.mlp.gate_up/N57344.K8192/M9/k5 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M10/k3
pdl_audit "${REC_TAG:-main}-moved" 2 30 --models llama-3-8b,llama-3-70b --M 9,10,11,12,13,14,15,16 --bits 2,3,4,5 \
  --dtypes f16
mv "$W/table.txt" "$W/table-moved.txt"
pdl_audit "${REC_TAG:-main}-qg" 1 100 --models qwen3-coder-next,glm-4.7-flash --M 5,7,9,10,11,13,14,15 --bits 2,3,4,5 \
  --dtypes f16
mv "$W/table.txt" "$W/table-qg.txt" 2>/dev/null; true
