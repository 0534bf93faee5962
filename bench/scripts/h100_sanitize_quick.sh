#!/usr/bin/env bash
# For the next device session (issue 5's last item): compute-sanitizer memcheck and racecheck over
# the whole kbit-verify --quick sweep, only kbit's own kernels instrumented (cuBLAS's nvjet_sm90
# kernels synchronise through TMA/mbarriers, which racecheck reports as false hazards).
# Usage on the GPU machine, from the repo root, binaries in .deps/gpu:
#   bash bench/scripts/h100_sanitize_quick.sh memcheck dense|moe,dequant
#   bash bench/scripts/h100_sanitize_quick.sh racecheck dense|moe,dequant
# Each call must stay under the 10-minute device limit; split further with --filter if needed.
set -u
tool=$1 kernels=$2
R=$PWD
cd .deps/gpu
timeout 570 compute-sanitizer --tool "$tool" --kernel-name kns=kbit --error-exitcode 9 \
  ./kbit-verify --quick --kernels "$kernels" --shapes "$R/data/shapes.json" --repro-dir "$OUT/repro" \
  > "$OUT/$tool-$kernels.txt" 2>&1
echo "$tool $kernels rc=$?"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|cases in" "$OUT/$tool-$kernels.txt"
grep -E "^\[" "$OUT/$tool-$kernels.txt" | tail -1 | cut -c1-100
