#!/usr/bin/env bash
# Forty-sixth session, last call (H200; the GPU doctest binary built here, carried): the whole binary after the PDL
# dispatch test took the short rows' new rule (its first run in -s46s checked the old expectation and failed on the
# four cases the rule moves by design).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s46d ${BUDGET:-120}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
