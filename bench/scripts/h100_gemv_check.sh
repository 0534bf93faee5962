#!/usr/bin/env bash
# Device-side check of a gemv change (repo root on the GPU machine, binaries in .deps/gpu, results in
# $OUT): the gpu.kernels exact-mode doctests, kbit-verify --quick on gemv, grouped_gemv and automatic,
# compute-sanitizer memcheck and racecheck (no cuBLAS) on their k = 2 cases, then kbit-bench at
# M = 1..4, k = BENCH_BITS (default 2 4) on the four models. $OUT gets summary.txt, bench.md and
# gemv-run.tar.gz (everything).
set -u
R=$PWD
T0=$SECONDS
FINAL=$OUT
OUT=/tmp/gemvrun; rm -rf $OUT; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
(cd .deps/gpu && ./kbit_tests_kernels > "$OUT/kernels.txt" 2>&1); echo "gpu.kernels rc=$? after $((SECONDS - T0)) s" | tee "$OUT/summary.txt"
tail -2 "$OUT/kernels.txt" >> "$OUT/summary.txt"
V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
"${V[@]}" --quick --kernels gemv,grouped_gemv,automatic --repro-dir "$OUT/repro" > "$OUT/verify.txt" 2>&1
echo "verify quick gemv,grouped_gemv,automatic rc=$? after $((SECONDS - T0)) s" | tee -a "$OUT/summary.txt"
sed -n '/^family.kernel/,/cases in/p' "$OUT/verify.txt" >> "$OUT/summary.txt"
CS=compute-sanitizer
command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
timeout 200 $CS --tool memcheck --error-exitcode 9 "${V[@]}" --quick --kernels gemv,grouped_gemv --no-cublas --no-rerun \
  --filter '/k2/' --threads 8 > "$OUT/memcheck.txt" 2>&1
echo "memcheck gemv,grouped_gemv k=2 rc=$? after $((SECONDS - T0)) s" | tee -a "$OUT/summary.txt"
grep -E "cases in|ERROR SUMMARY" "$OUT/memcheck.txt" >> "$OUT/summary.txt"
timeout 200 $CS --tool racecheck --error-exitcode 9 "${V[@]}" --quick --kernels gemv,grouped_gemv --no-cublas --no-rerun \
  --no-exact --filter '/k2/' --threads 8 > "$OUT/racecheck.txt" 2>&1
echo "racecheck gemv,grouped_gemv k=2 rc=$? after $((SECONDS - T0)) s" | tee -a "$OUT/summary.txt"
grep -E "cases in|RACECHECK SUMMARY" "$OUT/racecheck.txt" >> "$OUT/summary.txt"
timeout -s INT 200 .deps/gpu/kbit-bench --shapes "$R/data/shapes.json" --git-commit "${GIT_COMMIT:-unknown}" \
  --models llama-3-70b llama-3-8b qwen3-coder-next glm-4.7-flash --M 1 2 3 4 --bits ${BENCH_BITS:-2 4} --dtypes f16 \
  --kernels gemv tcv automatic grouped_gemv grouped_tcv \
  --json "$OUT/bench.json" --markdown "$OUT/bench.md" --csv "$OUT/bench.csv" > "$OUT/bench.txt" 2>&1
echo "bench rc=$? after $((SECONDS - T0)) s" | tee -a "$OUT/summary.txt"
grep -E "^TOTAL|dispatch audit" "$OUT/bench.txt" >> "$OUT/summary.txt"
gzip -9 "$OUT/bench.txt" "$OUT/bench.json" "$OUT/verify.txt" "$OUT/memcheck.txt" "$OUT/racecheck.txt"
cp "$OUT/summary.txt" "$OUT/bench.md" "$FINAL/"
tar -C "$OUT" -czf "$FINAL/gemv-run.tar.gz" .
cat "$OUT/summary.txt"
