#!/usr/bin/env bash
# Forty-second session, third form of KBIT_GEMV_BALANCE: early PDL grids at M = 1, the dynamic-size opt-in where the
# pad needs it, no carveout preference. The first form (-h200-balance) also set the max-shared carveout, which stayed
# on the kernel and slowed its later unpadded launches; the second (-h200-balance2) skipped pads over the kernel's
# default limit, which is 48 KB less its static arrays (38.6 KB for the tables' kernel), so it padded none of the
# 512-CTA grids (46.8 KB) and measured nothing. Predicted: 1.06-1.08x on the 512-CTA k = 2 grids (Llama-3-70B k/v_proj,
# Qwen3 q/o_proj) if the balance, not the carveout, won there; 1.00x where nothing is padded. Checks with the knob on:
# the gemv / split-K / PDL doctests, kbit-verify --full --pdl at M = 1, k = 2..5. kbit-bench gemv_pdl and
# automatic_pdl at M = 1, k = 2..5, f16, d1 / bal in rotation, three reps. Env: BUDGET (default 300 s).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/balance3 ${BUDGET:-300}
gpu_info
balance_ab "${REC_TAG:-balance3}"
