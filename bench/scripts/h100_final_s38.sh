#!/usr/bin/env bash
# Thirty-eighth session, last call: the two dispatch rules from the audit (bench/results/2026-11-28-h100-audit-s38)
# as landed in kernels/api.cu -- under PDL, tcv at M = 2, k = 4 on rows of N = 8192..16383 and K >= 8192 (Llama-3-70B
# q/o_proj, down), and tcv at M = 9..12, k = 2, 3 on the unsplit one-wave grids of 32..100 M weights (Llama-3-70B
# q/o_proj). One build of main; the PDL dispatch doctests (their new M = 2 and M = 9..12 checks) and the automatic
# ones; kbit-verify --full --pdl over automatic on Llama-3-70B at M = 2, 9, 12; then one kbit-bench run of
# automatic_pdl beside gemv_pdl, tcv_pdl and tcw_pdl on Llama-3-70B at M = 2, 9, 12, k = 2..5
# (bench/scripts/pdl_kernels_table.py: automatic_pdl should now run the fastest kernel's time on the moved rows).
# Pack first; carry .deps/sys.txz. Env: BUDGET (default 520 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/fin" 520
device_build_new /tmp/fin kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*with PDL*,*automatic*' 150 'dispatch and automatic doctests'
L=dense/llama-3-70b
verify_moved 60 $L.attn.q_proj/N8192.K8192/M2/k4 $L.attn.o_proj/N8192.K8192/M2/k4 $L.mlp.down/N8192.K28672/M2/k4 \
  $L.attn.q_proj/N8192.K8192/M9/k2 $L.attn.q_proj/N8192.K8192/M12/k2 $L.attn.q_proj/N8192.K8192/M12/k3 \
  $L.attn.o_proj/N8192.K8192/M9/k3 $L.attn.o_proj/N8192.K8192/M12/k2 $L.attn.o_proj/N8192.K8192/M12/k3
pdl_audit "${REC_TAG:-main}-moved" 1 30 --models llama-3-70b --M 2,9,12 --bits 2,3,4,5 --dtypes f16
