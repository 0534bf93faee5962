#!/usr/bin/env bash
# Device-side check after a kernel change (run from the repo root on the GPU machine, binaries in
# .deps/gpu): the gpu.kernels exact-mode doctest, kbit-verify --quick, then kbit-bench --quick.
# Output under $OUT (kernels.txt, verify-quick.txt/.json, bench-quick.{json,md,txt}).
set -u
R=$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
(cd .deps/gpu && ./kbit_tests_kernels > "$OUT/kernels.txt" 2>&1); echo "kernels rc=$?" | tee "$OUT/summary.txt"
tail -3 "$OUT/kernels.txt"
.deps/gpu/kbit-verify --quick --shapes "$R/data/shapes.json" --json "$OUT/verify-quick.json" \
  --repro-dir "$OUT/repro" > "$OUT/verify-quick.txt" 2>&1
echo "verify quick rc=$?" | tee -a "$OUT/summary.txt"
tail -4 "$OUT/verify-quick.txt"
.deps/gpu/kbit-bench --quick --shapes "$R/data/shapes.json" --git-commit "${GIT_COMMIT:-unknown}" \
  --json "$OUT/bench-quick.json" --markdown "$OUT/bench-quick.md" > "$OUT/bench-quick.txt" 2>&1
echo "bench quick rc=$?" | tee -a "$OUT/summary.txt"
grep -E "TOTAL|total" "$OUT/bench-quick.txt" | head -20
