#!/usr/bin/env bash
# kbit-bench at k = 2..5 (f16, M = 1..16, the four models, gemv / tcv / automatic and their grouped
# forms; cold weights), for the k = 2 / 3 / 5 rows of PERF.md's targets. Run from the repo root on
# the GPU machine, binaries in .deps/gpu; results (JSON, markdown, CSV, SVG) under $OUT.
set -u
R=$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/gpu.txt"
timeout -s INT "${LIMIT:-560}" .deps/gpu/kbit-bench --shapes "$R/data/shapes.json" --git-commit "${GIT_COMMIT:-unknown}" \
  --models llama-3-70b llama-3-8b qwen3-coder-next glm-4.7-flash --M 1 2 4 8 16 --bits 2 3 4 5 --dtypes f16 \
  --kernels gemv tcv automatic grouped_gemv grouped_tcv \
  --json "$OUT/bench.json" --markdown "$OUT/bench.md" --csv "$OUT/bench.csv" --svg-dir "$OUT/svg" > "$OUT/bench.txt" 2>&1
echo "bench rc=$?"
grep -E "^TOTAL|dispatch audit" "$OUT/bench.txt"
gzip -9 "$OUT/bench.txt" "$OUT/bench.json"
