#!/usr/bin/env bash
# The landed MoE short-row rule (grouped_gemv for K <= 512 up to 16 routed rows, was 24), one call:
# GPU doctests, kbit-verify --quick over every MoE kernel (plain and --pdl), then kbit-bench over the
# MoE projections (automatic, automatic_pdl, grouped_gemv, grouped_tcv at M = 1..4, k = 2..5, f16;
# the dispatch audit of the rule). Binaries in .deps/gpu. Env: LAND_BUDGET (default 300 s).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/moeruleland ${LAND_BUDGET:-300}
gpu_info
gpu_doctest kernels kbit_tests_kernels 120
verify_run verify 100 9 "verify --quick moe" --quick --kernels moe
verify_run verify-pdl 100 3 "verify --quick --pdl moe" --quick --pdl --kernels moe
moe_catalogue "$W/moe"
B="--models qwen3-coder-next glm-4.7-flash --M 1,2,3,4 --bits 2,3,4,5 --dtypes f16"
arm_setup() { KERNELS=automatic,automatic_pdl,grouped_gemv,grouped_tcv; }
REPS=1 MIN_LEFT=20 bench_rotation moe-rule-land run
