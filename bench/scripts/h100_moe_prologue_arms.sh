#!/usr/bin/env bash
# MoE prologue variants in one binary: an EXPERIMENT build, not in the repository, whose launchers
# read KBIT_EXP_MOE_PROLOGUE and pick a template instantiation of the grouped kernels (0 = main's
# code; bench/results/2026-11-25-h100-moeprologue/README.md). Repo root on the GPU machine,
# .deps/gpu: that build. kbit-bench `automatic` / `automatic_pdl` (BENCH) over the arms in ARMS
# (default 0 1 3), REPS times in rotation. Logs land in $OUT/run.tar.gz on any exit.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/moearms 540
gpu_info
# The doctests, sanitizers, kbit-verify and ncu need binaries that did not fit this call's carry
# beside the four-variant kbit-bench: the final build runs them. kbit-bench verifies every timed row.
B=${BENCH:---models qwen3-coder-next glm-4.7-flash --M 1,2,4,8,16,32,64,512 --bits 4 --dtypes f16}
arm_setup() { ENV="KBIT_EXP_MOE_PROLOGUE=${1#v}"; }
arms=(); for v in ${ARMS:-0 1 3}; do arms+=(v$v); done
MIN_LEFT=25 bench_rotation moearms "${arms[@]}"
