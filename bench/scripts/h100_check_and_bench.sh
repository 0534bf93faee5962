#!/usr/bin/env bash
# Device-side record after a kernel or dispatch change (repo root on the GPU machine, binaries in
# .deps/gpu): the gpu.kernels exact-mode doctest, kbit-verify --quick (every kernel), memcheck over
# every quick case of the kernels named in SAN_KERNELS (those matching SAN_FILTER if set), racecheck
# (no cuBLAS) over those of RACE_KERNELS if set, kbit-fragcheck --gpu if built, then the default
# kbit-bench sweep (k = 4, f16 + bf16, M 1..512, all four models) or the one BENCH_ARGS names (e.g.
# BENCH_ARGS="--models llama-3-70b --M 16 32 64 --kernels tcw tcv automatic --dtypes f16"). Everything lands in
# $OUT/run.tar.gz (one file: the device returns only a few) plus summary.txt.
set -u
R=$PWD
T0=$SECONDS
W=/tmp/checkrun; rm -rf $W; mkdir -p $W/bench
nvidia-smi > $W/nvidia-smi-before.txt
(cd .deps/gpu && ./kbit_tests_kernels > $W/kernels.txt 2>&1); echo "kernels rc=$? after $((SECONDS - T0)) s" | tee $W/summary.txt
tail -2 $W/kernels.txt | tee -a $W/summary.txt
V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
"${V[@]}" --quick --json $W/verify-quick.json --repro-dir $W/repro > $W/verify-quick.txt 2>&1
echo "verify quick rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
tail -12 $W/verify-quick.txt | tee -a $W/summary.txt
CS=compute-sanitizer
command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
timeout "${SAN_LIMIT:-170}" $CS --tool memcheck --error-exitcode 9 "${V[@]}" --quick --kernels "${SAN_KERNELS:-tcv,grouped_tcv}" \
  --no-rerun ${SAN_FILTER:+--filter "$SAN_FILTER"} > $W/memcheck.txt 2>&1
echo "memcheck ${SAN_KERNELS:-tcv,grouped_tcv} rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
tail -3 $W/memcheck.txt | tee -a $W/summary.txt
if [ -n "${RACE_KERNELS:-}" ]; then  # racecheck without cuBLAS (its own kernels report hazards)
  timeout "${SAN_LIMIT:-170}" $CS --tool racecheck --error-exitcode 9 "${V[@]}" --quick --kernels "$RACE_KERNELS" \
    --no-rerun --no-cublas ${SAN_FILTER:+--filter "$SAN_FILTER"} > $W/racecheck.txt 2>&1
  echo "racecheck $RACE_KERNELS rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
  tail -3 $W/racecheck.txt | tee -a $W/summary.txt
fi
if [ -x .deps/gpu/kbit-fragcheck ]; then
  .deps/gpu/kbit-fragcheck --gpu > $W/fragcheck-gpu.txt 2>&1; echo "fragcheck --gpu rc=$?" | tee -a $W/summary.txt
  tail -1 $W/fragcheck-gpu.txt | tee -a $W/summary.txt
fi
left=$((585 - (SECONDS - T0)))
timeout -s INT $left .deps/gpu/kbit-bench --shapes "$R/data/shapes.json" --git-commit "${GIT_COMMIT:-unknown}" ${BENCH_ARGS:-} \
  --json $W/bench/bench.json --markdown $W/bench/bench.md --csv $W/bench/bench.csv --svg-dir $W/bench/svg \
  > $W/bench/bench.txt 2>&1
echo "bench rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
nvidia-smi > $W/nvidia-smi-after.txt
grep -E "^TOTAL" $W/bench/bench.txt | grep " f16 " | head -40
tar -C $W -czf "$OUT/run.tar.gz" .
cp $W/summary.txt "$OUT/"
