#!/usr/bin/env bash
# Device-side: the gpu.kernels exact-mode test, the default kbit-bench sweep (k = 4, f16 + bf16,
# M 1..512, all four models), then, time allowing, k = 2, 3, 5 and kbit-verify --quick. Run from
# the repo root on the GPU machine, binaries in .deps/gpu. Everything lands in $OUT/*.tar.gz plus
# the console tails (a device call returns at most 8 files).
set -u
R=$PWD
T0=$SECONDS
W=/tmp/benchrun; rm -rf $W; mkdir -p $W/default $W/k235
nvidia-smi > $W/nvidia-smi-before.txt
(cd .deps/gpu && ./kbit_tests_kernels > $W/kernels.txt 2>&1); echo "kernels rc=$?" | tee $W/summary.txt
B=(.deps/gpu/kbit-bench --shapes "$R/data/shapes.json" --git-commit "${GIT_COMMIT:-unknown}")
timeout -s INT "${BENCH_LIMIT:-330}" "${B[@]}" --json $W/default/bench.json --markdown $W/default/bench.md \
  --csv $W/default/bench.csv --svg-dir $W/default/svg > $W/default/bench.txt 2>&1
echo "bench default rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
nvidia-smi > $W/nvidia-smi-after.txt
if [ $((SECONDS - T0)) -lt 300 ]; then
  timeout -s INT $((440 - (SECONDS - T0))) "${B[@]}" --bits 2 3 5 --json $W/k235/bench.json --markdown $W/k235/bench.md \
    --csv $W/k235/bench.csv --svg-dir $W/k235/svg > $W/k235/bench.txt 2>&1
  echo "bench k=2,3,5 rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
fi
left=$((585 - (SECONDS - T0)))
if [ $left -gt 60 ]; then
  timeout $left .deps/gpu/kbit-verify --quick --shapes "$R/data/shapes.json" > $W/verify-quick.txt 2>&1
  echo "verify quick rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
  tail -2 $W/verify-quick.txt
fi
grep -E "^TOTAL" $W/default/bench.txt | grep " f16 " | head -40
tar -C $W -czf "$OUT/bench-run.tar.gz" .
cp $W/summary.txt "$OUT/"
