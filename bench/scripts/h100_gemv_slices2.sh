#!/usr/bin/env bash
# Experiment call: gemv's workspace grids with K slices of >= 2 k-tiles instead of >= 4 (one per
# warp): GLM q_b_proj 3 -> 6 slices (480 CTAs), Llama-3-8B k/v_proj 16 -> 32 (512 CTAs); cluster plans
# unchanged. Against main, both built on the GPU machine (pack first with OLD=<main> bash
# bench/scripts/pack_device_build.sh): the gemv, PDL and split-K doctests, kbit-verify --quick over gemv
# (with and without --pdl); kbit-bench old and new in rotation, GLM-4.7-Flash and Llama-3-8B at
# M = 1, 2, 4, k = 2..5 (gemv, gemv_pdl, automatic_pdl). Env: GS2_BUDGET (default 420 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/gemvslices2 ${GS2_BUDGET:-420}
gemv_plan_ab gemvslices2 "glm-4.7-flash llama-3-8b"
