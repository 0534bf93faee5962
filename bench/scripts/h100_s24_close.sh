#!/usr/bin/env bash
# Closing call of the twenty-fourth session: grouped k = 2 on the register table joins the lean loop
# (kFetchLeanMid; measured in -leanall's allmid and -fetchat's arms at M = 8, 16), checked and measured
# against main before it (OLD), then one record run of automatic_pdl for the block TOTAL rows.
# One call, OLD and this tree built side by side: grouped_tcv and MoE doctests, memcheck over the
# grouped_tcv doctests, kbit-verify --quick over grouped_tcv and moe.automatic (with --pdl), kbit-bench
# old / new in rotation (grouped_tcv, automatic_pdl; the MoE catalogue; M = 1, 4, 8, 16; k = 2, 4;
# 2 reps); then kbit-bench new (automatic_pdl; Qwen3-Coder-Next and GLM-4.7-Flash; M = 1, 2, 4, 8;
# k = 2..5) once. Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz
# and .deps/old-src.txz. Env: S24_BUDGET (default 370 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/s24close ${S24_BUDGET:-370}
device_build_ab /tmp/s24old /tmp/s24new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*grouped_tcv*,*MoE kernels*' 60 'grouped_tcv, MoE kernels'
doctest_sanitize memcheck '*grouped_tcv*' 40
verify_run verify-pdl 40 3 "verify --quick --pdl grouped_tcv,moe.automatic" --quick --pdl --kernels grouped_tcv,moe.automatic
moe_catalogue "$W/cat"
arm_setup() {
  KERNELS=grouped_tcv,automatic_pdl
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,4,8,16 --bits 2,4 --dtypes f16 --models qwen3-coder-next glm-4.7-flash"
}
BUDGET=$((BUDGET - 70)) MIN_LEFT=10 REPS=2 bench_rotation s24ab old new
SHAPES=$R/data/shapes.json
arm_setup() { KERNELS=automatic_pdl; B="--M 1,2,4,8 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash"; }
MIN_LEFT=10 REPS=1 bench_rotation s24-record record
