#!/usr/bin/env bash
# Issue 5: compute-sanitizer memcheck over the whole kbit-verify --quick sweep, only kernels whose
# name contains "kbit" instrumented (cuBLAS is not ours). One process is too slow for the
# 10-minute device limit, so the sweep is split with --shard I/N into processes that run at once
# (the sanitizer's host-side work dominates; more than ~6 at once run out of GPU memory).
# racecheck cannot use a kernel filter with cuBLAS in the process: h100_racecheck_sharded.sh.
# Usage on the GPU machine, from the repo root, binaries in .deps/gpu:
#   bash bench/scripts/h100_sanitize_sharded.sh SHARDS SECONDS [FIRST LAST]   (writes $OUT/sanitize/)
# VERIFY_FLAGS adds kbit-verify options (e.g. VERIFY_FLAGS=--no-cublas: no cuBLAS kernel runs, so
# the sweep goes faster and only kbit kernels are left to check).
# (the first run, 2026-11-22, also started racecheck shards here; they crashed, see the results)
set -u
n=$1 limit=$2 first=${3:-0} last=${4:-$(($1 - 1))}
R=$PWD
mkdir -p "$OUT/sanitize"
for ((i = first; i <= last; ++i)); do
  ( timeout "$limit" compute-sanitizer --tool memcheck --kernel-name kns=kbit --error-exitcode 9 \
      .deps/gpu/kbit-verify --quick ${VERIFY_FLAGS:-} --threads 2 --shard "$i/$n" --shapes "$R/data/shapes.json" \
      --repro-dir "$OUT/sanitize/repro-$i" > "$OUT/sanitize/memcheck-${i}of$n.txt" 2>&1
    echo "memcheck shard $i/$n rc=$?" >> "$OUT/sanitize/rc.txt" ) &
done
wait
sort "$OUT/sanitize/rc.txt"
for f in "$OUT"/sanitize/memcheck-*of*.txt; do
  echo "== $(basename "$f"): $(grep -E 'ERROR SUMMARY' "$f")"
  grep -E ' cases in ' "$f" || echo "   (no summary line) last: $(grep -E '^\[' "$f" | tail -1 | cut -c1-16)"
done
