#!/usr/bin/env bash
# Device-side check and first measurement of the wgmma kernel (tcw) -- repo root on the GPU
# machine, binaries in .deps/gpu. gpu.kernels doctest (exact mode + tolerance, every kernel),
# kbit-verify --quick on tcw and automatic, memcheck on the quick tcw cases of the first K-shapes,
# then a kbit-bench sweep (BENCH_MODELS, k = BENCH_BITS, f16, M 1..1024) of tcw against tcv, mma,
# dequant_cublas, automatic and cuBLAS in the same run. Results in $OUT/run.tar.gz + summary.txt.
set -u
R=$PWD
T0=$SECONDS
W=/tmp/tcwrun; rm -rf $W; mkdir -p $W/bench
nvidia-smi > $W/nvidia-smi-before.txt
(cd .deps/gpu && ./kbit_tests_kernels > $W/kernels.txt 2>&1); echo "kernels rc=$? after $((SECONDS - T0)) s" | tee $W/summary.txt
grep -E "ERROR|tcw" $W/kernels.txt | head -20 | tee -a $W/summary.txt
tail -3 $W/kernels.txt | tee -a $W/summary.txt
V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
"${V[@]}" --quick --kernels tcw,automatic --json $W/verify-quick.json --repro-dir $W/repro > $W/verify-quick.txt 2>&1
echo "verify quick tcw,automatic rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
grep -E "FAIL" $W/verify-quick.txt | head -10 | tee -a $W/summary.txt
tail -8 $W/verify-quick.txt | tee -a $W/summary.txt
CS=compute-sanitizer
command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
timeout "${SAN_LIMIT:-120}" $CS --tool memcheck --error-exitcode 9 "${V[@]}" --quick --kernels tcw --no-rerun \
  ${SAN_FILTER:+--filter "$SAN_FILTER"} > $W/memcheck.txt 2>&1
echo "memcheck tcw rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
tail -3 $W/memcheck.txt | tee -a $W/summary.txt
timeout "${SAN_LIMIT:-120}" $CS --tool racecheck --error-exitcode 9 "${V[@]}" --quick --kernels tcw --no-rerun --no-cublas \
  ${SAN_FILTER:+--filter "$SAN_FILTER"} > $W/racecheck.txt 2>&1
echo "racecheck tcw rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
tail -3 $W/racecheck.txt | tee -a $W/summary.txt
left=$((${BENCH_END:-585} - (SECONDS - T0)))
timeout -s INT $left .deps/gpu/kbit-bench --shapes "$R/data/shapes.json" --git-commit "${GIT_COMMIT:-unknown}" \
  --models ${BENCH_MODELS:-llama-3-70b llama-3-8b qwen3-coder-next glm-4.7-flash} --bits ${BENCH_BITS:-4} --dtypes f16 \
  --M ${BENCH_M:-1 8 16 32 64 128 256 512 1024} --kernels ${BENCH_KERNELS:-tcw tcv mma dequant_cublas automatic} \
  --json $W/bench/bench.json --markdown $W/bench/bench.md --csv $W/bench/bench.csv --svg-dir $W/bench/svg \
  > $W/bench/bench.txt 2>&1
echo "bench rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
nvidia-smi > $W/nvidia-smi-after.txt
tar -C $W -czf "$OUT/run.tar.gz" .
cp $W/summary.txt "$OUT/"
