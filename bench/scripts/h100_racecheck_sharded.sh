#!/usr/bin/env bash
# racecheck over the whole kbit-verify --quick sweep with --no-cublas: no cuBLAS kernel launches,
# so racecheck runs unfiltered and instruments only our kernels. (With a kernel filter racecheck
# dies with "Internal Sanitizer Error" at the first cuBLAS call, H100, CUDA 13.0; instrumenting
# cuBLAS's kernels made each case take ~15 s and gave false reports inside its nvjet kernels.)
# --no-cublas skips the dequant_cublas cases and the cuBLAS checks; the CPU checks and exact mode
# vs the CPU run with the same tolerances (docs/kbit-verify.md). The sweep is split with --shard
# into processes that run at once, one CPU thread each (16 cores: 12 shards leave room for the
# sanitizer's host side), each under `timeout` so that all finish inside the 10-minute device limit.
# Usage on the GPU machine from the repo root, binaries in .deps/gpu:
#   bash bench/scripts/h100_racecheck_sharded.sh [SHARDS=12] [SECONDS=510]   (writes $OUT/r/)
set -u
n=${1:-12} limit=${2:-510}
R=$PWD
mkdir -p "$OUT/r"
: > "$OUT/r/rc.txt"
echo "racecheck: kbit-verify --quick --no-cublas, unfiltered, $n shards, timeout ${limit}s each" | tee "$OUT/r/mode.txt"
for ((i = 0; i < n; ++i)); do
  ( timeout "$limit" compute-sanitizer --tool racecheck --error-exitcode 9 --print-limit 100000 \
      .deps/gpu/kbit-verify --quick --no-cublas --threads 1 --shard "$i/$n" --shapes "$R/data/shapes.json" \
      --repro-dir "$OUT/r/repro-$i" > "$OUT/r/racecheck-${i}of$n.txt" 2>&1
    echo "racecheck shard $i/$n rc=$? (124: timed out, 9: hazards)" >> "$OUT/r/rc.txt" ) &
done
wait
sort -n -k3 "$OUT/r/rc.txt"
done_total=0 planned_total=0 hazards_total=0
for ((i = 0; i < n; ++i)); do
  f="$OUT/r/racecheck-${i}of$n.txt"
  # every finished case prints one "[  i/n] status name ..." line (stdout is not a terminal)
  done_i=$(grep -cE '^\[ *[0-9]+/[0-9]+\] ' "$f")
  planned_i=$(sed -nE 's/^kbit-verify: ([0-9]+) cases on .*/\1/p' "$f" | head -1)
  hazards_i=$(grep -E 'RACECHECK SUMMARY' "$f" | grep -oE '[0-9]+ hazard' | grep -oE '[0-9]+' | head -1)
  echo "== shard $i/$n: ${done_i}/${planned_i:-?} cases completed, hazards: ${hazards_i:-? (no RACECHECK SUMMARY)}"
  grep -E ' cases in ' "$f" || echo "   (no summary line) last: $(grep -E '^\[' "$f" | tail -1 | cut -c1-100)"
  grep -m3 -E "Internal Sanitizer Error|CUDA error|^kbit-verify: " "$f" | grep -v ' cases on ' | sed 's/^/   /'
  done_total=$((done_total + done_i)) planned_total=$((planned_total + ${planned_i:-0}))
  hazards_total=$((hazards_total + ${hazards_i:-0}))
done
echo "racecheck total: $done_total/$planned_total cases completed, $hazards_total hazards"
# A device call returns at most 8 files: pack the shard logs.
tar -C "$OUT" -czf "$OUT/racecheck.tar.gz" r && rm -rf "$OUT/r"
