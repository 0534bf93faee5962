#!/usr/bin/env bash
# Device call of 2026-11-23 (repo root on the GPU machine, binaries in .deps/gpu):
# 1. at once: kbit-verify --quick --no-cublas without a sanitizer (every check, the rerun checked
#    vs the CPU), and compute-sanitizer memcheck (kns=kbit, with cuBLAS) over the quick-sweep cases
#    of the kernels changed since the 2026-11-22 memcheck record (gemv, grouped_gemv, automatic);
# 2. the racecheck work queue (h100_racecheck_queue.sh) for the rest of the time.
# Usage: bash bench/scripts/h100_memcheck_then_queue.sh TOTAL_SECONDS QUEUE [MEMCHECK_SECONDS=240]
set -u
total=$1 queue=$2 mlimit=${3:-240}
t0=$SECONDS
R=$PWD
C="$OUT/m"
mkdir -p "$C"
( timeout "$mlimit" .deps/gpu/kbit-verify --quick --no-cublas --threads 4 --shapes "$R/data/shapes.json" \
    --json "$C/verify-quick-nocublas.json" --repro-dir "$C/repro-nocublas" > "$C/verify-quick-nocublas.txt" 2>&1
  echo "verify --quick --no-cublas rc=$? $(grep -E ' cases in ' "$C/verify-quick-nocublas.txt")" >> "$C/summary.txt" ) &
VERIFY_FLAGS="--kernels gemv,grouped_gemv,automatic" OUT="$C" bash bench/scripts/h100_sanitize_sharded.sh 6 "$mlimit" \
  > "$C/memcheck-summary.txt" 2>&1
wait
cat "$C/summary.txt" "$C/memcheck-summary.txt"
tar -C "$OUT" -czf "$OUT/m.tar.gz" m && rm -rf "$C"
left=$((total - (SECONDS - t0) - 20))
bash bench/scripts/h100_racecheck_queue.sh "$queue" 13 13 "$left" q
