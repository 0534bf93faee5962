#!/usr/bin/env bash
# gemv_pdl_plan (small grids without the split-K round under PDL: unsplit at M = 1 for K <= 512,
# cluster grids of > 96 CTAs on the workspace) and choose_kernel's PDL rules after gemv's early
# launch (Llama-3-8B k/v_proj, Qwen3 q_proj and GLM kv_b_proj at M <= 2 to gemv) against main's
# build, both built on the GPU machine (pack first with OLD=<main> bash bench/scripts/pack_device_build.sh):
# the GPU doctests, compute-sanitizer memcheck over the PDL and gemv doctests and racecheck over the
# PDL doctests' gemv shapes, kbit-verify --quick --pdl over gemv and automatic; then kbit-bench arms
# old and new in rotation over the catalogue at M = 1, 2, k = 2..5 (automatic_pdl, gemv_pdl, tcv_pdl).
# Env: GR_BUDGET (default 570 s), GR_REPS (default 2).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/gemvrules ${GR_BUDGET:-570}
device_build_ab /tmp/grold /tmp/grnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
doctest_checks 130 '*LinearArgs::pdl*,*gemv*' 90 '*kernels wait for the work before them*' 60
verify_run verify-pdl 60 4 "verify --quick --pdl gemv,automatic" --quick --pdl --kernels gemv,automatic
arm_setup() {
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  KERNELS=automatic_pdl,gemv_pdl,tcv_pdl
}
B="--M 1,2 --bits 2,3,4,5 --dtypes f16"
MIN_LEFT=40 REPS=${GR_REPS:-2} bench_rotation gemvrules old new
