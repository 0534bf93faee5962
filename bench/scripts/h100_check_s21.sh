#!/usr/bin/env bash
# Closing check of the twenty-first session's main on the H100, one build made on the GPU machine
# (pack first with bash bench/scripts/pack_device_build.sh): the format and kernel GPU doctests,
# compute-sanitizer memcheck over the gemv, split-K, PDL and MoE doctests and racecheck over the
# split-K doctests and the PDL chain, then kbit-verify --quick over every dense and MoE kernel, and
# with --pdl over gemv, tcv, tcw, automatic and the MoE kernels (main_checks, lib/device_run.sh).
# Env: CK_BUDGET (default 560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/checks21 ${CK_BUDGET:-560}
main_checks cks21 '*split-K*,*chain of linear*'
