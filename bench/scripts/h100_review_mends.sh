#!/usr/bin/env bash
# (Checks only; the results are recorded in bench/results/2026-11-26-h100-reviewmends.)
# After the session review's mends (the PDL doctest's pass over gemv's pair tables, the PDL tcw rule
# keyed on tcw's pair table, the PDL-plan sweep on the CPU): this tree built on the GPU machine (pack
# first with bash bench/scripts/pack_device_build.sh), the GPU doctests, compute-sanitizer memcheck
# over the PDL doctests, kbit-verify --quick --pdl over automatic. Env: RM_BUDGET (default 400 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/reviewmends ${RM_BUDGET:-400}
device_build_new /tmp/rmbuild kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 150
doctest_sanitize memcheck '*LinearArgs::pdl*' 120
verify_run verify-pdl 60 4 "verify --quick --pdl automatic" --quick --pdl --kernels automatic
