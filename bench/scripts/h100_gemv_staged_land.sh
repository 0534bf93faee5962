#!/usr/bin/env bash
# Landing call of gemv's staged form on small grids (kernels/gemv.cu gemv_tile's ST;
# gemv_use_staged in lib/kbit/gemv_sched.h: at most 2 CTAs per SM) against main, both built on the
# GPU machine (pack first with OLD=<main> bash bench/scripts/pack_device_build.sh): the GPU doctests,
# memcheck over the staged and PDL doctests, racecheck over the staged ones, kbit-verify --quick
# (with and without --pdl) over gemv and automatic; kbit-bench old and new in rotation over the
# catalogue at M = 1, 2, k = 2..5 (gemv, gemv_pdl, automatic_pdl); then ncu (h100_pipe_util.sh) on
# Qwen3 dense.down at M = 1, k = 5, gemv on the register pipeline and forced staged, for the write-up
# of the full-grid loss (the experiment tree's KBIT_GEMV_STAGED_EXP=2 / =1; never committed).
# Env: GL_BUDGET (default 575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/gemvstagedland ${GL_BUDGET:-575}
device_build_ab /tmp/gslold /tmp/gslnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 150
doctest_sanitize memcheck '*staged*,*LinearArgs::pdl*' 120
doctest_sanitize racecheck '*staged*' 90
verify_run verify 50 4 "verify --quick gemv,automatic" --quick --kernels dense.gemv,dense.automatic
verify_run verify-pdl 50 4 "verify --quick --pdl gemv,automatic" --quick --pdl --kernels dense.gemv,dense.automatic
arm_setup() {
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,2 --bits 2,3,4,5 --dtypes f16"; KERNELS=gemv,gemv_pdl,automatic_pdl
}
BUDGET=$((BUDGET - 80)) MIN_LEFT=20 REPS=2 bench_rotation gemvstagedland old new
ncu_pipe_arms 30 KBIT_GEMV_STAGED_EXP dense/qwen3-coder-next.mlp.dense.down/N2048.K5120/M1/k5/f16/gemv 2 1
