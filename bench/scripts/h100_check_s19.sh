#!/usr/bin/env bash
# Closing check of the nineteenth session's main on the H100, one build made on the GPU machine
# (pack first with bash bench/scripts/pack_device_build.sh): the format and kernel GPU doctests,
# compute-sanitizer memcheck over the gemv, split-K, PDL and MoE doctests and racecheck over the
# split-K doctests (gemv's M >= 2 fixup) and the PDL chain, then kbit-verify --quick over every dense
# and MoE kernel, and with --pdl over gemv, tcv, tcw, automatic and the MoE kernels.
# Env: CK_BUDGET (default 560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/checks19 ${CK_BUDGET:-560}
device_build_new /tmp/cks19 kbit-bench kbit-verify kbit_tests_kernels kbit_tests_gpu || exit 1
doctest_checks 150 '*gemv*,*split-K*,*LinearArgs::pdl*,*MoeArgs::pdl*,*MoE kernels*' 150 '*split-K*,*chain of linear*' 90
verify_run verify 120 6 "verify --quick dense,moe" --quick --kernels dense,moe
verify_run verify-pdl 90 6 "verify --quick --pdl gemv,tcv,tcw,automatic,moe" --quick --pdl --kernels dense.gemv,dense.tcv,dense.tcw,dense.automatic,moe
