#!/usr/bin/env bash
# (The KBIT_GEMV_SMALL switch of the last rotation was in that tree only; the rest is main at the commit that added this script.)
# Landing call of gemv's early PDL launches (kernels/gemv.cu kGemvEarly, gemv_early_launch in
# lib/kbit/gemv_sched.h) against main's build, both built on the GPU machine (pack first with
# OLD=<main> bash bench/scripts/pack_device_build.sh): the GPU doctests, compute-sanitizer memcheck
# over the PDL and gemv doctests and racecheck over the PDL chain, kbit-verify --quick --pdl over
# gemv and automatic; kbit-bench arms old and new in rotation over the catalogue at M = 1, 2,
# k = 2..5 (gemv_pdl, automatic_pdl); then the experiment on the cluster grids (KBIT_GEMV_SMALL=1:
# the same grid on the workspace with the early launch; =2: unsplit) against new, on the six small
# Qwen3/GLM shapes. Env: GL_BUDGET (default 575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/gemvland ${GL_BUDGET:-575}
device_build_ab /tmp/glold /tmp/glnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
doctest_checks 120 '*LinearArgs::pdl*,*gemv*' 75 '*chain of linear*' 45
verify_run verify-pdl 60 4 "verify --quick --pdl gemv,automatic" --quick --pdl --kernels gemv,automatic
arm_setup() {
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; s1 | s2) ENV="KBIT_GEMV_SMALL=${1#s}" ;; esac
  KERNELS=gemv_pdl,automatic_pdl
}
B="--M 1,2 --bits 2,3,4,5 --dtypes f16"
MIN_LEFT=60 REPS=2 bench_rotation gemvland old new
small_catalogue "$W"
MIN_LEFT=10 REPS=2 bench_rotation gemvsmall snew s1 s2
