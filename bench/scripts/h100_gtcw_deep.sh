#!/usr/bin/env bash
# grouped_tcw with the DEEP step pipeline (no wgmma drain per step; 128/256-row tiles, k >= 4)
# against the build without it, one short call: GPU doctests, memcheck and racecheck over the MoE +
# grouped_tcw doctests (the stage reuse changed), kbit-verify --quick on grouped_tcw + automatic
# (MoE), kbit-bench A/B/A/B at k = 4, M = 1024..4096 on the MoE shapes.
# Binaries in .deps/gpu: this build's; kbit-bench-land (the landed build without DEEP).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwdeep 270
gtcw_checks 40 75 45 memcheck racecheck
B="--models qwen3-coder-next glm-4.7-flash --M 1024,2048,4096 --bits 4 --dtypes f16"
MIN_LEFT=25 moe_ab gtcwdeep grouped_tcw,automatic land .deps/gpu/kbit-bench-land deep
