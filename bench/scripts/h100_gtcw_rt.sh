#!/usr/bin/env bash
# grouped_tcw with two 128-row tiles per CTA where K <= 512 (grouped_tcw_rt; the kernel templated on
# it, so the one-tile kernels keep no row-tile loop) against main before it (the epilogue change),
# one call: GPU doctests (cases for two tiles per CTA and a partial last group added), memcheck and
# racecheck over the MoE + grouped_tcw doctests, kbit-verify --quick on grouped_tcw + automatic
# (MoE), kbit-bench grouped_tcw A/B/A/B on the MoE shapes at M = 512..4096, k = 2..4.
# Binaries in .deps/gpu: this build's; kbit-bench-epi (main before the change).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwrt ${GTCW_BUDGET:-400}
gtcw_checks 60 90 90 memcheck racecheck
moe_ab gtcwrt grouped_tcw epi .deps/gpu/kbit-bench-epi rt
