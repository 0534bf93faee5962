#!/usr/bin/env bash
# racecheck over the whole kbit-verify --quick sweep, split with --shard into processes that run
# at once. racecheck with an include filter (--kernel-name kns=kbit) dies with "Internal Sanitizer
# Error: failed to handle a hardware exception" on the second case (H100, CUDA 13.0), so this
# first probes excluding cuBLAS's nvjet kernels instead; if that fails too, it instruments every
# kernel and the hazards are attributed to kernels afterwards (cuBLAS's TMA/mbarrier kernels give
# false reports). Usage on the GPU machine from the repo root, binaries in .deps/gpu:
#   bash bench/scripts/h100_racecheck_sharded.sh SHARDS SECONDS   (writes $OUT/r/)
set -u
n=$1 limit=$2
R=$PWD
mkdir -p "$OUT/r"
filt=(--kernel-name-exclude kns=nvjet)
timeout 120 compute-sanitizer --tool racecheck "${filt[@]}" --error-exitcode 9 \
  .deps/gpu/kbit-verify --quick --shard 0/300 --shapes "$R/data/shapes.json" > "$OUT/r/probe.txt" 2>&1
rc=$?
if [ $rc -ne 0 ] || grep -q "Internal Sanitizer Error" "$OUT/r/probe.txt"; then
  echo "probe with ${filt[*]} failed (rc=$rc); instrumenting every kernel"
  filt=()
fi
echo "racecheck filter: ${filt[*]:-none}" | tee "$OUT/r/mode.txt"
for ((i = 0; i < n; ++i)); do
  ( timeout "$limit" compute-sanitizer --tool racecheck "${filt[@]}" --error-exitcode 9 --print-limit 100000 \
      .deps/gpu/kbit-verify --quick --threads 1 --shard "$i/$n" --shapes "$R/data/shapes.json" \
      --repro-dir "$OUT/r/repro-$i" > "$OUT/r/racecheck-${i}of$n.txt" 2>&1
    echo "racecheck shard $i/$n rc=$?" >> "$OUT/r/rc.txt" ) &
done
wait
sort "$OUT/r/rc.txt"
for f in "$OUT"/r/racecheck-*of*.txt; do
  echo "== $(basename "$f"): $(grep -E 'RACECHECK SUMMARY' "$f")"
  grep -E ' cases in ' "$f" || echo "   (no summary line) last: $(grep -E '^\[' "$f" | tail -1 | cut -c1-16)"
  grep -c "Internal Sanitizer Error" "$f"
done
