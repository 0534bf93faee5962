#!/usr/bin/env bash
# racecheck over the whole kbit-verify --quick sweep with --no-cublas: no cuBLAS kernel launches,
# so racecheck runs unfiltered and instruments only our kernels. (With a kernel filter racecheck
# dies with "Internal Sanitizer Error" at the first cuBLAS call, H100, CUDA 13.0; instrumenting
# cuBLAS's kernels made each case take ~15 s and gave false reports inside its nvjet kernels.)
# --no-cublas skips the dequant_cublas cases and the cuBLAS checks; check (a) against the CPU runs
# with the same tolerances (docs/kbit-verify.md).
# VERIFY_FLAGS (default "--no-rerun --no-exact") drops the second launch and the exact-mode launch
# of each case: racecheck only tracks shared memory, and those launches run the same kernel with
# the same grid and shape as the first one (other data values, no data-dependent shared-memory
# indexing), so they add sanitizer time and no new access pattern. Set VERIFY_FLAGS= to keep them.
# The sweep is split with --shard into processes that run at once, one CPU thread each, each under
# `timeout` so that all finish inside the 10-minute device limit; STARTS (comma list, one per
# shard, default 0) resumes each shard at that position (--range START:), so later calls continue
# where a time limit cut the previous one. The summary prints the next STARTS.
# Usage on the GPU machine from the repo root, binaries in .deps/gpu:
#   bash bench/scripts/h100_racecheck_sharded.sh [SHARDS=14] [SECONDS=510] [STARTS=0,0,...] [TAG=r]
#   (writes $OUT/TAG.tar.gz: the shard logs, rc.txt, mode.txt, next-starts.txt, gpu-load.txt)
set -u
source "$(dirname "$0")/lib/racecheck.sh"
n=${1:-14} limit=${2:-510} starts=${3:-} tag=${4:-r}
flags=${VERIFY_FLAGS---no-rerun --no-exact}
R=$PWD
D="$OUT/$tag"
mkdir -p "$D"
: > "$D/rc.txt"
IFS=, read -r -a start <<< "$starts"
echo "racecheck: kbit-verify --quick --no-cublas $flags, unfiltered, $n shards, timeout ${limit}s each, starts ${starts:-0}" | tee "$D/mode.txt"
start_load_monitor "$D/gpu-load.txt"
for ((i = 0; i < n; ++i)); do
  s=${start[$i]:-0}
  ( racecheck_run "$limit" "$i/$n" "$s:" "$D/repro-$i" "$D/racecheck-${i}of$n.txt"
    echo "racecheck shard $i/$n from $s rc=$? (124: timed out, 9: hazards)" >> "$D/rc.txt" ) &
done
wait $(jobs -p | grep -v "^$mon\$")
kill $mon 2>/dev/null
sort -n -k3 "$D/rc.txt"
done_total=0 planned_total=0 hazards_total=0 reports_total=0 next=()
for ((i = 0; i < n; ++i)); do
  f="$D/racecheck-${i}of$n.txt"
  s=${start[$i]:-0}
  done_i=$(log_cases_done "$f") hazards_i=$(log_hazards "$f") reports_i=$(log_race_reports "$f")
  planned_i=$(sed -nE 's/^kbit-verify: ([0-9]+) cases on .*/\1/p' "$f" | head -1)
  echo "== shard $i/$n: positions $s..$((s + done_i - 1)) done (${done_i} of ${planned_i:-?} from $s), hazards: ${hazards_i:-? (no RACECHECK SUMMARY)}, race reports printed: $reports_i"
  grep -E ' cases in ' "$f" || echo "   (no summary line) last: $(grep -E '^\[' "$f" | tail -1 | cut -c1-100)"
  log_errors "$f" 3 "   "
  done_total=$((done_total + done_i)) planned_total=$((planned_total + ${planned_i:-0}))
  hazards_total=$((hazards_total + ${hazards_i:-0})) reports_total=$((reports_total + reports_i))
  next+=($((s + done_i)))
done
echo "racecheck total: $done_total/$planned_total cases completed this call, $hazards_total hazards in summaries, $reports_total race reports printed"
(IFS=,; echo "${next[*]}") | tee "$D/next-starts.txt"
# A device call returns at most 8 files: pack the shard logs.
tar -C "$OUT" -czf "$OUT/$tag.tar.gz" "$tag" && rm -rf "$D"
