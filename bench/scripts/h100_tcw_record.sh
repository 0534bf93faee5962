#!/usr/bin/env bash
# Device-side record of main after a tcw change (repo root on the GPU machine, binaries in .deps/gpu):
# gpu.kernels doctest, kbit-verify --quick (every kernel), memcheck over the quick tcw / automatic /
# tcv cases of the random, Qwen3 and GLM shapes at M = 1, 3, 17, 33, 64, 130, racecheck over the
# tcw ones (--no-cublas), kbit-fragcheck --gpu, then the default kbit-bench sweep. $OUT/rec/.
set -u
W=$OUT/rec; mkdir -p $W/bench
T0=$SECONDS
nvidia-smi > $W/nvidia-smi-before.txt
(cd .deps/gpu && ./kbit_tests_kernels > $W/kernels.txt 2>&1); echo "kernels rc=$?" | tee $W/summary.txt
tail -2 $W/kernels.txt | tee -a $W/summary.txt
V=(.deps/gpu/kbit-verify --shapes data/shapes.json)
"${V[@]}" --quick --repro-dir /tmp/repro > $W/verify-quick.txt 2>&1; echo "verify quick rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
tail -16 $W/verify-quick.txt | tee -a $W/summary.txt
F='(random|qwen3|glm).*/M(1|3|17|33|64|130)/'
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "${V[@]}" --quick --kernels tcw,automatic,tcv --no-rerun \
  --filter "$F" > $W/memcheck.txt 2>&1; echo "memcheck rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
tail -6 $W/memcheck.txt | tee -a $W/summary.txt
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 "${V[@]}" --quick --kernels tcw --no-rerun --no-cublas \
  --filter "$F" > $W/racecheck.txt 2>&1; echo "racecheck rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
tail -3 $W/racecheck.txt | tee -a $W/summary.txt
.deps/gpu/kbit-fragcheck --gpu > $W/fragcheck-gpu.txt 2>&1; echo "fragcheck --gpu rc=$?" | tee -a $W/summary.txt
tail -1 $W/fragcheck-gpu.txt | tee -a $W/summary.txt
left=$((590 - (SECONDS - T0)))
timeout -s INT $left .deps/gpu/kbit-bench --shapes data/shapes.json --git-commit "${GIT_COMMIT:-unknown}" \
  --json $W/bench/bench.json --markdown $W/bench/bench.md --csv $W/bench/bench.csv > $W/bench/bench.txt 2>&1
echo "bench rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
nvidia-smi > $W/nvidia-smi-after.txt
grep -E "^TOTAL" $W/bench/bench.txt | grep " f16 " | tee -a $W/summary.txt
grep "dispatch audit" $W/bench/bench.txt | tee -a $W/summary.txt
gzip -9 $W/verify-quick.txt $W/bench/bench.json $W/bench/bench.txt $W/memcheck.txt $W/racecheck.txt
