#!/usr/bin/env bash
# Landing call of the split-K fixups with their slices' loads in flight (slice_sum, kernels/common.cuh):
# tcv's workspace fixup spread over all 128 threads (8 slices per round trip) and gemv's at M >= 2
# (16 per round trip; M = 1 keeps main's loop, whose SASS is unchanged), against main. The first
# call (h100_slice_sum.sh, bench/results/2026-11-26-h100-slicesum) also batched the cluster sums, tcw's
# reduce kernel and gemv's M = 1 fixup; those lost or stayed level and were dropped. Both builds on the
# GPU machine (pack first with OLD=<main> bash bench/scripts/pack_device_build.sh): the split-K, gemv,
# tcv, PDL and dispatch doctests, memcheck and racecheck over the split-K ones, kbit-verify --quick
# (with and without --pdl) over gemv, tcv, tcw and automatic; then kbit-bench old and new in rotation
# over Qwen3-Coder-Next, GLM-4.7-Flash and Llama-3-8B at M = 1, 2, 4, 8, k = 2..5 (gemv_pdl, tcv_pdl,
# automatic_pdl; the MoE projections of the first two through automatic_pdl). Env: SL_BUDGET (575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/slicesumland ${SL_BUDGET:-575}
device_build_ab /tmp/slold /tmp/slnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*split-K*,*gemv*,*tcv*,*LinearArgs::pdl*,*chain of linear*,*automatic*' 120 'split-K, gemv, tcv, pdl, automatic'
doctest_sanitize memcheck '*split-K*,*chain of linear*' 60
doctest_sanitize racecheck '*split-K*' 60
verify_run verify 60 4 "verify --quick dense gemv,tcv,tcw,automatic" --quick --kernels dense.gemv,dense.tcv,dense.tcw,dense.automatic
verify_run verify-pdl 50 4 "verify --quick --pdl dense gemv,tcv,tcw,automatic" --quick --pdl --kernels dense.gemv,dense.tcv,dense.tcw,dense.automatic
arm_setup() {
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,2,4,8 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-8b"
  KERNELS=gemv_pdl,tcv_pdl,automatic_pdl
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation slicesumland old new
