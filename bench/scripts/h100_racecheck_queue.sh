#!/usr/bin/env bash
# racecheck over what is left of the kbit-verify --quick sweep (--no-cublas, same flags as
# h100_racecheck_sharded.sh), as a work queue: QUEUE holds one chunk per line, "SHARD A B" = positions
# A..B-1 of --shard SHARD/N; WORKERS processes each take the next chunk until the queue is empty or
# the deadline comes. Static shards left some processes idle while others sat on 4-minute MoE cases;
# chunks of a few cases keep every worker busy. Chunks cut by the deadline go to $OUT/TAG/left.txt
# (same format, starting at the first unfinished case) for the next call. A case counts as done
# when kbit-verify printed its line (lib/racecheck.sh says why that is enough).
# Usage (repo root on the GPU machine, binaries in .deps/gpu):
#   bash bench/scripts/h100_racecheck_queue.sh QUEUE N WORKERS SECONDS [TAG=q]   -> $OUT/TAG.tar.gz
set -u
source "$(dirname "$0")/lib/racecheck.sh"
queue=$1 n=$2 workers=$3 limit=$4 tag=${5:-q}
flags=${VERIFY_FLAGS---no-rerun --no-exact}
R=$PWD
D="$OUT/$tag"
mkdir -p "$D/log"
deadline=$(($(date +%s) + limit))
cp "$queue" "$D/queue.txt"
echo 0 > "$D/next"
echo "racecheck queue: kbit-verify --quick --no-cublas $flags, unfiltered, --shard I/$n chunks from $queue ($(wc -l < "$queue") chunks), $workers workers, ${limit}s" | tee "$D/mode.txt"
start_load_monitor "$D/gpu-load.txt"
take() {  # prints the next chunk line number (1-based) or nothing
  flock "$D/next" bash -c 'k=$(($(cat "$1") + 1)); if [ "$k" -le "$(wc -l < "$2")" ]; then echo "$k" > "$1"; echo "$k"; fi' _ "$D/next" "$D/queue.txt"
}
worker() {
  while k=$(take) && [ -n "$k" ]; do
    read -r s a b < <(sed -n "${k}p" "$D/queue.txt")
    left=$((deadline - $(date +%s)))
    [ "$left" -gt 20 ] || { echo "$s $a $b" >> "$D/unstarted.txt"; continue; }
    log="$D/log/s${s}_${a}_${b}.txt"
    racecheck_run "$left" "$s/$n" "$a:$b" "$D/repro" "$log"
    echo "$s $a $b rc=$?" >> "$D/rc.txt"
  done
}
for ((w = 0; w < workers; ++w)); do worker & done
wait $(jobs -p | grep -v "^$mon\$")
kill $mon 2>/dev/null
: > "$D/left.txt"
done_total=0 hazards_total=0 reports_total=0 fails=0 chunks_done=0
while read -r s a b; do
  log="$D/log/s${s}_${a}_${b}.txt"
  if [ ! -f "$log" ]; then echo "$s $a $b" >> "$D/left.txt"; continue; fi
  d=$(log_cases_done "$log") h=$(log_hazards "$log") r=$(log_race_reports "$log") f=$(log_cases_failed "$log")
  done_total=$((done_total + d)) hazards_total=$((hazards_total + ${h:-0})) reports_total=$((reports_total + r))
  fails=$((fails + f))
  if grep -qE ' cases in ' "$log"; then
    chunks_done=$((chunks_done + 1))
  else
    echo "$s $((a + d)) $b" >> "$D/left.txt"
  fi
  log_errors "$log" 2 "   s$s $a:$b "
done < "$D/queue.txt"
echo "racecheck queue: $chunks_done of $(wc -l < "$D/queue.txt") chunks finished, $done_total cases completed, $fails FAIL, $hazards_total hazards in summaries, $reports_total race reports printed; $(wc -l < "$D/left.txt") chunks left (left.txt)" | tee "$D/summary.txt"
sort -t= -k2 "$D/rc.txt" | awk -F'rc=' '{c[$2]++} END {for (x in c) print "rc=" x ": " c[x] " chunks"}'
cp "$D/left.txt" "$OUT/left.txt"
tar -C "$OUT" -czf "$OUT/$tag.tar.gz" "$tag" && rm -rf "$D"
