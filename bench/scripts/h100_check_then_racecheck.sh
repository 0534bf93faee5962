#!/usr/bin/env bash
# Device call of 2026-11-23 (repo root on the GPU machine, binaries in .deps/gpu): the GPU doctest
# binary and kbit-verify --quick as they ship, then compute-sanitizer racecheck over the GPU
# doctests without cuBLAS (KBIT_TEST_NO_CUBLAS=1) next to the sharded racecheck of the quick sweep
# (h100_racecheck_sharded.sh). Everything lands in $OUT/check.tar.gz and $OUT/r.tar.gz.
# Usage: bash bench/scripts/h100_check_then_racecheck.sh TOTAL_SECONDS [SHARDS] [STARTS]
set -u
total=$1 shards=${2:-13} starts=${3:-}
t0=$SECONDS
R=$PWD
C="$OUT/check"
mkdir -p "$C"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv > "$C/gpu.txt"
compute-sanitizer --version > "$C/sanitizer.txt" 2>&1
compute-sanitizer --help 2>&1 | grep -iE -A2 'racecheck' >> "$C/sanitizer.txt"
(cd .deps/gpu && timeout 120 ./kbit_tests_kernels > "$C/kernels.txt" 2>&1; echo "kernels rc=$?") | tee "$C/summary.txt"
timeout 200 .deps/gpu/kbit-verify --quick --shapes "$R/data/shapes.json" --json "$C/verify-quick.json" \
  --repro-dir "$C/repro-quick" > "$C/verify-quick.txt" 2>&1
echo "verify --quick rc=$? $(grep -E ' cases in ' "$C/verify-quick.txt")" | tee -a "$C/summary.txt"
left=$((total - (SECONDS - t0) - 25))
echo "racecheck budget ${left}s" | tee -a "$C/summary.txt"
(cd .deps/gpu && KBIT_TEST_NO_CUBLAS=1 timeout "$left" compute-sanitizer --tool racecheck --error-exitcode 9 \
   --print-limit 100000 ./kbit_tests_kernels > "$C/racecheck-tests-nocublas.txt" 2>&1
 echo "racecheck kbit_tests_kernels (KBIT_TEST_NO_CUBLAS=1) rc=$? (124: timed out, 9: hazards)" >> "$C/summary.txt") &
bash bench/scripts/h100_racecheck_sharded.sh "$shards" "$left" "$starts" r
wait
cat "$C/summary.txt"
tail -4 "$C/racecheck-tests-nocublas.txt"
tar -C "$OUT" -czf "$OUT/check.tar.gz" check && rm -rf "$C"
