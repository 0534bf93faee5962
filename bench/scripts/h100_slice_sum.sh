#!/usr/bin/env bash
# A/B call of the split-K sums with every slice's load in flight (slice_sum in kernels/common.cuh):
# gemv's and tcv's workspace fixups spread over all 128 threads of the last CTA, their cluster sums,
# tcw_reduce_kernel and mma's fixup, against main (the ncu profile of tcv on Qwen3 dense.down showed
# 15-23% of the stall samples in the fixup: each of the ks == 0 warp's 4 elements summed in turn, 4
# loads per round trip; bench/results/2026-11-26-h100-ncutcv). Both builds on the GPU machine (pack
# first with OLD=<main> bash bench/scripts/pack_device_build.sh): the split-K, gemv, tcv, tcw and PDL
# doctests, memcheck over the split-K ones, kbit-verify --quick (with and without --pdl) over gemv,
# tcv, tcw, mma and automatic; then kbit-bench old and new in rotation over Qwen3-Coder-Next,
# GLM-4.7-Flash and Llama-3-8B at M = 1, 2, 4, k = 2..5 (gemv_pdl, tcv_pdl, tcw_pdl, automatic_pdl).
# Env: SS_BUDGET (default 575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/slicesum ${SS_BUDGET:-575}
device_build_ab /tmp/ssold /tmp/ssnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*split-K*,*gemv*,*tcv*,*tcw*,*LinearArgs::pdl*,*chain of linear*' 120 'split-K, gemv, tcv, tcw, pdl'
doctest_sanitize memcheck '*split-K*' 60
verify_run verify 60 4 "verify --quick dense gemv,tcv,tcw,mma,automatic" --quick --kernels dense.gemv,dense.tcv,dense.tcw,dense.mma,dense.automatic
verify_run verify-pdl 50 4 "verify --quick --pdl dense gemv,tcv,tcw,automatic" --quick --pdl --kernels dense.gemv,dense.tcv,dense.tcw,dense.automatic
arm_setup() {
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,2,4 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-8b"
  KERNELS=gemv_pdl,tcv_pdl,tcw_pdl,automatic_pdl
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation slicesum old new
