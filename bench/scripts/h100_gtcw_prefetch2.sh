#!/usr/bin/env bash
# grouped_tcw with the weight words fetched two steps ahead (tcw_steps_loop; the profile after the
# eleventh session's changes showed the one-step fetch placed at the end of the loop body) against
# main before it, one call: GPU doctests, memcheck and racecheck over the MoE + grouped_tcw doctests,
# kbit-verify --quick on grouped_tcw + automatic (MoE), kbit-bench grouped_tcw A/B/A/B on the MoE
# shapes at M = 512..4096, k = 2..4.
# Binaries in .deps/gpu: this build's; kbit-bench-main (main before the change).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwpf2 ${GTCW_BUDGET:-400}
gtcw_checks 60 90 90 memcheck racecheck
moe_ab gtcwpf2 grouped_tcw main .deps/gpu/kbit-bench-main pf2
