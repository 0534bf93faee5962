#!/usr/bin/env bash
# The landed form of tcv's adjacent-pair table (bench/results/2026-11-27-h100-tcvadj): the grouped
# kernel and the dense k = 3 kernel on it, the dense k = 4 kernel on block_nibbles' table as before.
# Every tcv kernel's SASS equals one measured in that record (sass_compare: dense k = 4 = the old
# arm's, the rest = the first call's new arm), so this call only runs the GPU doctests of the tcv,
# MoE, grouped, one-hot and exact-mode cases and memcheck over the tcv and MoE ones on the tree as
# committed. Pack first with bash bench/scripts/pack_device_build.sh. Env: AL_BUDGET (default 230 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvadjland ${AL_BUDGET:-230}
device_build_new /tmp/alb kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*tcv*,*MoE*,*grouped*,*one-hot*,*exact*' 60 'tcv, MoE, grouped, one-hot, exact'
doctest_sanitize memcheck '*tcv*,*MoE kernels equal*' 60
