#!/usr/bin/env bash
# Forty-seventh session, last call (H200; the GPU doctest binary built here, carried): the whole binary after the PDL
# chain test runs the kernel PDL dispatch picks in both chains (its first run in -s47q failed at D = 1024, k = 3,
# M = 16, where automatic launched plainly now takes tcv and under PDL tcw).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s47z ${BUDGET:-120}
gpu_info
gpu_doctest kernels kbit_tests_kernels 150
# Then kbit-verify --quick over automatic, launched plainly and with --pdl (the session's four dispatch rules).
verify_run verify-auto 120 4 "verify --quick automatic" --quick --kernels dense.automatic
verify_run verify-auto-pdl 120 4 "verify --quick --pdl automatic" --quick --pdl --kernels dense.automatic
