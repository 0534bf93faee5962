#!/usr/bin/env bash
# grouped_tcw as landed in the tenth session (item-major grid, per-item wgmma widths, the tile rule
# re-measured with the widths) against the item-major build before the widths, one call: GPU
# doctests, memcheck and racecheck over the MoE + grouped_tcw doctests, kbit-verify --quick on
# grouped_tcw + automatic (MoE), kbit-bench A/B/A/B on the MoE shapes at M = 512..4096, k = 2..4.
# Binaries in .deps/gpu: this build's; kbit-bench-order (item-major grid, no widths).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwrule2 480
gtcw_checks 60 90 90 memcheck racecheck
moe_ab gtcwrule2 grouped_tcw,automatic order .deps/gpu/kbit-bench-order rule
