#!/usr/bin/env bash
# compute-sanitizer racecheck over the MoE equality doctest (grouped_gemv with the activation
# prefetch among the kernels) on main, built on the GPU machine: the check the prefetch run
# (bench/results/2026-11-26-h100-prefetcha) cut at its time limit. Env: RF_BUDGET (default 500 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/racefinal ${RF_BUDGET:-500}
device_build_new /tmp/rfbuild kbit_tests_kernels || exit 1
gpu_info
doctest_sanitize racecheck '*MoE kernels equal*' 300
