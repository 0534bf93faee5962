#!/usr/bin/env bash
# Per-kernel PDL rows for the dispatch question, one device call (repo root on the GPU machine;
# .deps/gpu/kbit-bench): kbit-bench BENCH, REPS times. Logs land in $OUT/run.tar.gz on any exit.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/pdlk 300
B=${BENCH:---models qwen3-coder-next glm-4.7-flash llama-3-8b --M 1 2 4 8 16 --bits 4 --dtypes f16}
K=${KERNELS:-gemv,tcv,tcw,automatic,gemv_pdl,tcv_pdl,tcw_pdl,automatic_pdl}
for i in $(seq ${REPS:-2}); do
  l=$(left); [ $l -lt 30 ] && break
  timeout -s INT $((l / (${REPS:-2} + 1 - i) + 5)) .deps/gpu/kbit-bench --shapes "$R/data/shapes.json" \
    --git-commit pdl-kernels $B --kernels $K --json $W/bench-$i.json > $W/bench-$i.txt 2>&1
  s "bench $i rc=$? after $((SECONDS - T0)) s"
done
