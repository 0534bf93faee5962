#!/usr/bin/env bash
# Device-side script of 2026-11-22 (run from the repo root on the GPU machine; binaries in .deps/gpu,
# results under $OUT). See bench/results/2026-11-22-h100-kernels/README.md.
set -u
R=$PWD
cd .deps/gpu
S="compute-sanitizer --kernel-regex kns=kbit --error-exitcode 9"
timeout 285 $S --tool memcheck ./kbit-verify --quick --shapes $R/data/shapes.json --repro-dir "$OUT/repro-mc" > "$OUT/memcheck-verify-quick.txt" 2>&1; echo "memcheck rc=$?"
grep -E "ERROR SUMMARY|cases in" "$OUT/memcheck-verify-quick.txt"; grep -E "^\[" "$OUT/memcheck-verify-quick.txt" | tail -1 | cut -c1-120
timeout 285 $S --tool racecheck ./kbit-verify --quick --shapes $R/data/shapes.json --repro-dir "$OUT/repro-rc" > "$OUT/racecheck-verify-quick.txt" 2>&1; echo "racecheck rc=$?"
grep -E "RACECHECK SUMMARY|cases in" "$OUT/racecheck-verify-quick.txt"; grep -E "^\[" "$OUT/racecheck-verify-quick.txt" | tail -1 | cut -c1-120
