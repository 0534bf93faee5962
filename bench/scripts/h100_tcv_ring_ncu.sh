#!/usr/bin/env bash
# [Lost; the knob and the ring are not on main: apply bench/results/2026-11-27-h100-tcvring/ring.patch
# to rerun. The record is that folder.]
# Follow-up of h100_tcv_ring.sh (the ring lost 0.70-0.85x at M = 1): ncu stall profile of grouped_tcv
# on Qwen3-Coder-Next experts.gate_up at T = 1, k = 4, with the register pipeline (KBIT_TCV_RING=0)
# and the ring's plan (=1), one verified launch each (bench/scripts/h100_pipe_util.sh). Pack first
# with bash bench/scripts/pack_device_build.sh. Env: RN_BUDGET (default 400 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvringncu ${RN_BUDGET:-400}
device_build_new /tmp/ringbuild kbit-verify || exit 1
gpu_info
ncu_pipe_arms 30 KBIT_TCV_RING moe/qwen3-coder-next.mlp.experts.gate_up/E512.N1024.K2048.top10.realistic/T1/k4/f16/grouped_tcv 0 1 14
