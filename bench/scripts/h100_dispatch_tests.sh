#!/usr/bin/env bash
# The GPU doctests after the review of the dispatch tests (M = 2 -> gemv and M = 3 -> tcw under PDL on
# 2048 x 5120; the one-pass shapes with half_cb and the 132-SM plan required), built on the GPU
# machine: the whole kbit_tests_kernels binary, then memcheck over the dispatch doctests.
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/disptests ${DT_BUDGET:-400}
device_build_new /tmp/dtbuild kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 120
doctest_sanitize memcheck '*PDL dispatch*,*one-pass*' 120
