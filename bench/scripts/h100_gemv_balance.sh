#!/usr/bin/env bash
# Experiment call: gemv's K slices balanced over the CTA's warps (gemv_balance in
# lib/kbit/gemv_sched.h: the fewest slices that keep a workspace plan's rounds of k-tiles per warp;
# Qwen3 dense.down and GLM o_proj 16 -> 10 slices, GLM shared_experts.down 16 -> 14) against main,
# both built on the GPU machine (pack first with OLD=<main> bash bench/scripts/pack_device_build.sh):
# the gemv and PDL doctests, kbit-verify --quick over gemv (with and without --pdl); kbit-bench old
# and new in rotation over the catalogue at M = 1, 2, 4, k = 2..5 (gemv, gemv_pdl, automatic_pdl).
# Env: GB_BUDGET (default 480 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/gemvbalance ${GB_BUDGET:-480}
gemv_plan_ab gemvbalance "qwen3-coder-next glm-4.7-flash llama-3-8b"
