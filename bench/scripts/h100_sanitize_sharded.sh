#!/usr/bin/env bash
# Issue 5's last item: compute-sanitizer memcheck and racecheck over the whole kbit-verify --quick
# sweep, only kbit's own kernels instrumented (cuBLAS's nvjet_sm90 kernels synchronise through
# TMA/mbarriers, which racecheck reports as false hazards). One process is too slow for the
# 10-minute device limit, so the sweep is split with --shard I/N into processes that run at once
# (the sanitizer's host-side work dominates; the GPU is mostly idle).
# Usage on the GPU machine, from the repo root, binaries in .deps/gpu:
#   bash bench/scripts/h100_sanitize_sharded.sh MEMCHECK_SHARDS RACECHECK_SHARDS SECONDS
set -u
nm=$1 nr=$2 limit=$3
R=$PWD
mkdir -p "$OUT/sanitize"
run() {  # tool index count
  timeout "$limit" compute-sanitizer --tool "$1" --kernel-name kns=kbit --error-exitcode 9 \
    .deps/gpu/kbit-verify --quick --threads 1 --shard "$2/$3" --shapes "$R/data/shapes.json" \
    --repro-dir "$OUT/sanitize/repro-$1-$2" > "$OUT/sanitize/$1-$2of$3.txt" 2>&1
  echo "$1 shard $2/$3 rc=$?" >> "$OUT/sanitize/rc.txt"
}
for ((i = 0; i < nm; ++i)); do run memcheck $i $nm & done
for ((i = 0; i < nr; ++i)); do run racecheck $i $nr & done
wait
sort "$OUT/sanitize/rc.txt"
for f in "$OUT"/sanitize/*of*.txt; do
  echo "== $(basename "$f"): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tr '\n' ' ')"
  grep -E ' cases in ' "$f" || echo "   (no summary line) last: $(grep -E '^\[' "$f" | tail -1 | cut -c1-16)"
done
