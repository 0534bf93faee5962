#!/usr/bin/env bash
# Prepared in the thirty-eighth session, not yet run: the crossovers behind the dispatch leads the audit left
# (bench/results/2026-11-28-h100-audit-s38, -final-s38), measured at every M between the audit's points:
# - Llama-3-8B q/o/k/v_proj at M = 13..16, k = 2, 3 (tcv_pdl led or tied at M = 12, tcw_pdl led by 5-9% at 16);
# - Llama-3-70B k/v_proj at M = 9..12, k = 2, 3 (tcv_pdl ahead by 5-6% at M = 9, k = 2 and M = 12, k = 3 only);
# - k = 5 at M = 9..11 on Llama-3-70B q/o_proj and gate_up (tcv_pdl ahead by 5-8% at M = 9, tcw_pdl at 12).
# One build of main (kbit-bench), then one kbit-bench run of gemv_pdl, tcv_pdl, tcw_pdl beside automatic_pdl on
# Llama-3-8B and Llama-3-70B at M = 9..16, k = 2, 3, 5, f16, two reps in rotation (best of 2 per row:
# bench/scripts/pdl_kernels_table.py reads both JSONs). A rule drawn from it lands only with a second call that
# checks automatic_pdl on the moved rows, as -final-s38 did. ~6 minutes of device time.
# Pack first (bash bench/scripts/pack_device_build.sh); carry .deps/sys.txz; move bench/results out for the call.
# Env: BUDGET (default 470 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/leads" 470
device_build_new /tmp/leads kbit-bench || exit 1
gpu_info
pdl_audit "${REC_TAG:-main}-leads" 2 40 --models llama-3-8b,llama-3-70b --M 9,10,11,12,13,14,15,16 --bits 2,3,5 \
  --dtypes f16
