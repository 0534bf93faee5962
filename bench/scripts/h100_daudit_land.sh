#!/usr/bin/env bash
# Twenty-fifth session: the dispatch audit's two rule changes (kernels/api.cu, choose_kernel under live
# PDL; bench/results/2026-11-27-h100-daudit): short narrow rows at k = 3 go to tcv from M = 2, and
# k = 2 goes to tcv's pair table at M = 2 from 16 M weights and at M = 1 from 32 M. One call: old (HEAD
# before the change, .deps/old-src.txz) and new built side by side; the PDL dispatch doctests and the
# dense PDL ones; kbit-verify --quick --pdl over automatic (new); kbit-bench old / new in rotation
# (automatic_pdl, gemv_pdl, tcv_pdl; all four catalogue models, so Llama-3-8B and -70B check the
# thresholds; M = 1, 2, 3; k = 2, 3; 2 reps).
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz and
# .deps/old-src.txz. Env: DL_BUDGET (560 s), DL_WORK (/tmp/dland), DL_KERNELS and DL_M (the bench's
# kernels and M), DL_TAG (the commit tag of the bench rows); h100_daudit_final.sh narrows them.
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init ${DL_WORK:-/tmp/dland} ${DL_BUDGET:-560}
device_build_ab /tmp/dl-old /tmp/dl-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*LinearArgs::pdl*,*one-pass*' 150 'PDL dispatch and chains'
verify_run verify-pdl 90 4 "verify --quick --pdl automatic" --quick --pdl --kernels dense.automatic,moe.automatic
arm_setup() {
  KERNELS=${DL_KERNELS:-automatic_pdl,gemv_pdl,tcv_pdl}
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M ${DL_M:-1,2,3} --bits 2,3 --dtypes f16"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=${DL_MIN_LEFT:-20} REPS=2 bench_rotation ${DL_TAG:-daudit} old new
