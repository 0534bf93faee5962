#!/usr/bin/env bash
# Twenty-fifth session, after h100_daudit_land.sh: the rules as landed (kernels/api.cu: k = 2 at M = 1
# only on rows of K <= 2048, and k = 3 at M = 2 on tcv's pair table, measured there as tcv_pdl against
# gemv_pdl) checked as automatic_pdl against the old rules in one call: old (.deps/old-src.txz) and new
# built side by side; the PDL dispatch doctests (their new cases: 2048 x 512 at k = 3, 2048 x 10240 and
# 16384 x 2048 at k = 2, 4096 x 8192 at k = 3); kbit-verify --quick --pdl over automatic (new);
# kbit-bench old / new in rotation (automatic_pdl; all four catalogue models; M = 1, 2; k = 2, 3; 2 reps).
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz and
# .deps/old-src.txz. Env: DF_BUDGET (420 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/dfinal ${DF_BUDGET:-420}
device_build_ab /tmp/df-old /tmp/df-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*LinearArgs::pdl*,*one-pass*' 150 'PDL dispatch and chains'
verify_run verify-pdl 90 4 "verify --quick --pdl automatic" --quick --pdl --kernels dense.automatic,moe.automatic
arm_setup() {
  KERNELS=automatic_pdl
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,2 --bits 2,3 --dtypes f16"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=15 REPS=2 bench_rotation daudit-final old new
