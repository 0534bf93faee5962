#!/usr/bin/env bash
# Device-side script of 2026-11-22 (run from the repo root on the GPU machine; binaries in .deps/gpu,
# results under $OUT). See bench/results/2026-11-22-h100-kernels/README.md.
set -u
R=$PWD
cd .deps/gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
timeout 500 ./kbit-verify --quick --time --time-m 1,4,16,64,128 --shapes $R/data/shapes.json --json "$OUT/verify-quick.json" --repro-dir "$OUT/repro" > "$OUT/verify-quick.txt" 2>&1; rc=$?; echo "verify rc=$rc"
grep -E "^\[.*fail" "$OUT/verify-quick.txt" | head -8
sed -n '/^family.kernel/,$p' "$OUT/verify-quick.txt" | head -16
