#!/usr/bin/env bash
# Forty-second session, second form of KBIT_GEMV_BALANCE (-h200-balance had the first): only the early PDL grids at
# M = 1 (kGemvEarly), and only pads within the kernel's default 48 KB of dynamic shared memory -- the first form opted
# in to larger pads and the max-shared carveout, which stayed set on the kernel and slowed its later, unpadded launches
# (Qwen3 dense.gate_up 4.52 -> 4.68 us, GLM shared_experts.gate_up at k = 4 11.94 -> 12.34). So the padded grids are
# the LUT kernel's at need 4 of its 5 CTAs per SM (~400-528 CTAs) and k = 2..5's at need 3 of 4 where the pad fits.
# Predicted: 1.06-1.08x on the 512-CTA k = 2 grids (Llama-3-70B k/v_proj, Qwen3 q/o_proj), 1.00x elsewhere. Checks with
# the knob on: the gemv / split-K / PDL doctests, kbit-verify --full --pdl at M = 1, k = 2..5. kbit-bench gemv_pdl and
# automatic_pdl at M = 1, k = 2..5, f16, d1 / bal in rotation, three reps. Env: BUDGET (default 300 s).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/balance2 ${BUDGET:-300}
gpu_info
balance_ab "${REC_TAG:-balance2}"
