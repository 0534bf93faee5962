#!/usr/bin/env bash
# (The experiment tree of this call also had grouped_gemv's staged form and the KBIT_GEMV_STAGED_EXP
# switch, =1 forcing the staged form wherever its plan allowed it; neither was committed. Main's rule,
# gemv_use_staged, came from this call's results: bench/results/2026-11-26-h100-gemvstaged.)
# Experiment and check call of gemv's staged form (kernels/gemv.cu, gemv_tile's ST; gemv_use_staged
# in lib/kbit/gemv_sched.h): every k-tile of a warp (at most 4) requested at once by cp.async into
# shared memory, at M = 1 where the register pipeline's warps would run k-tiles in series, dense and
# grouped. Both builds on the GPU machine (pack first with OLD=<main> bash
# bench/scripts/pack_device_build.sh): the GPU doctests, memcheck over the staged and PDL doctests,
# racecheck over the staged ones, kbit-verify --quick (with and without --pdl) over gemv, automatic
# and grouped_gemv; then kbit-bench in rotation at M = 1, k = 2..5 over the arms old (main), new (the
# rule) and forced (the experiment tree's KBIT_GEMV_STAGED_EXP=1: staged wherever its plan allows):
# the whole catalogue (gemv_pdl, automatic_pdl; arms old, new, forced) and the MoE projections
# (automatic_pdl; oldmoe, newmoe, forcedmoe). Env: GS_BUDGET (default 575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/gemvstaged ${GS_BUDGET:-575}
device_build_ab /tmp/gsold /tmp/gsnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 120
doctest_sanitize memcheck '*staged*,*LinearArgs::pdl*,*MoeArgs::pdl*' 90
doctest_sanitize racecheck '*staged*' 60
verify_run verify 50 4 "verify --quick gemv,automatic,grouped_gemv" --quick --kernels gemv,automatic,grouped_gemv
verify_run verify-pdl 50 4 "verify --quick --pdl gemv,automatic,grouped_gemv" --quick --pdl --kernels gemv,automatic,grouped_gemv
moe_catalogue "$W/moe"
GS_MOE=$SHAPES; unset SHAPES
arm_setup() {
  case $1 in old*) BIN=.deps/gpu/kbit-bench-old ;; forced*) ENV=KBIT_GEMV_STAGED_EXP=1 ;; esac
  case $1 in
    *moe) SHAPES=$GS_MOE; B="--M 1 --bits 2,3,4,5 --dtypes f16"; KERNELS=automatic_pdl ;;
    *) unset SHAPES; B="--M 1 --bits 2,3,4,5 --dtypes f16"; KERNELS=gemv_pdl,automatic_pdl ;;
  esac
}
MIN_LEFT=20 REPS=2 bench_rotation gemvstaged oldmoe newmoe forcedmoe old new forced
