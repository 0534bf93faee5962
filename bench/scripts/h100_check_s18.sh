#!/usr/bin/env bash
# Closing check of the eighteenth session's main on the H100, one build made on the GPU machine
# (pack first with bash bench/scripts/pack_device_build.sh): the format and kernel GPU doctests,
# compute-sanitizer memcheck over the gemv (staged included), split-K, PDL and MoE doctests and
# racecheck over the staged doctests and the PDL chain, then kbit-verify --quick over every dense and
# MoE kernel, and with --pdl over gemv, tcv, tcw, automatic and the MoE kernels.
# Env: CK_BUDGET (default 560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/checks18 ${CK_BUDGET:-560}
main_checks cks18 '*staged*,*chain of linear*'
