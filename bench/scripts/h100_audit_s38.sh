#!/usr/bin/env bash
# Thirty-eighth session: the dense dispatch audit at decode sizes over all four catalogue models (the last one with
# the Llama shapes was the seventeenth session's record, the twenty-sixth's covered Qwen3 and GLM only). The record
# of this session (bench/results/2026-11-28-h100-record-s38) had automatic_pdl at M = 2, k = 4 on gemv slower than
# tcv at M = 4 on Llama-3-70B o_proj and down. One kbit-bench run of gemv_pdl, tcv_pdl, tcw_pdl beside
# automatic_pdl, M = 2, 3, 4, 6, 8, 12, 16, k = 2..5, f16; its markdown report lists the rows where automatic_pdl is
# > 5% slower than the fastest other kernel; bench/scripts/pdl_kernels_table.py reads the JSON.
# Pack first (bash bench/scripts/pack_device_build.sh); carry .deps/sys.txz. Env: BUDGET (default 470 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/aud" 470
device_build_new /tmp/aud kbit-bench || exit 1
gpu_info
pdl_audit "${REC_TAG:-main}-audit" 1 60 --M 2,3,4,6,8,12,16 --bits 2,3,4,5 --dtypes f16 --markdown "$W/report.md"
