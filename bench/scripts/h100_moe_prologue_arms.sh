#!/usr/bin/env bash
# MoE prologue variants in one binary: an EXPERIMENT build, not in the repository, whose launchers
# read KBIT_EXP_MOE_PROLOGUE and pick a template instantiation of the grouped kernels (0 = main's
# code; bench/results/2026-11-25-h100-moeprologue/README.md). Repo root on the GPU machine,
# .deps/gpu: that build. kbit-bench `automatic` / `automatic_pdl` (BENCH) over the arms in ARMS
# (default 0 1 3), REPS times in rotation. Logs land in $OUT/run.tar.gz on any exit.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/moearms ${BUDGET:-540}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$W/summary.txt"
# The doctests, sanitizers, kbit-verify and ncu need binaries that did not fit this call's carry
# beside the four-variant kbit-bench: the final build runs them. kbit-bench verifies every timed row.
B=${BENCH:---models qwen3-coder-next glm-4.7-flash --M 1,2,4,8,16,32,64,512 --bits 4 --dtypes f16}
arms=(${ARMS:-0 1 3}); arms_n=$(echo ${ARMS:-0 1 3} | wc -w); n=$(( ${REPS:-2} * arms_n )); i=0
for rep in $(seq ${REPS:-2}); do
  for v in "${arms[@]}"; do
    i=$((i + 1)); l=$(left); [ $l -lt 25 ] && break 2
    KBIT_EXP_MOE_PROLOGUE=$v timeout -s INT $((l / (n + 1 - i) + 5)) .deps/gpu/kbit-bench --shapes "$R/data/shapes.json" \
      --git-commit "moearms-v$v" $B --kernels automatic,automatic_pdl --json $W/bench-$i-v$v.json > $W/bench-$i-v$v.txt 2>&1
    s "bench $i variant $v rc=$? after $((SECONDS - T0)) s"
  done
done
