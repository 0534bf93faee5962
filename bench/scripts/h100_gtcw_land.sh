#!/usr/bin/env bash
# grouped_tcw as landed (the k = 2, 64-row kernels back to one width): GPU doctests, memcheck over the
# MoE + grouped_tcw doctests, kbit-verify --quick on grouped_tcw + automatic (MoE), and the k = 2 rows
# at M = 2048, 4096 against the item-major build (kbit-bench-order), once each.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwland 200
gtcw_checks 60 60 60 memcheck
B="--models qwen3-coder-next glm-4.7-flash --M 2048,4096 --bits 2 --dtypes f16"
REPS=1 MIN_LEFT=15 moe_ab gtcwland grouped_tcw,automatic order .deps/gpu/kbit-bench-order land
