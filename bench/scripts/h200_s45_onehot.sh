#!/usr/bin/env bash
# Forty-fifth session, sixth call (main after the one-hot doctest's seed fix; built here, carried): the whole GPU
# doctest binary, and memcheck over the one-hot roundings doctest. (-s45t5's run of the rewritten doctest stopped at
# its REQUIRE: one new case drew a random codebook that was not half_cb.)
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s45o ${BUDGET:-150}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
doctest_sanitize memcheck "*moe_weight_roundings names*" 90
