#!/usr/bin/env bash
# Like h100_ab_check.sh, with a third arm: the new binary run under the environment EXP_ENV (an
# experiment switch read by the new build), so one call times main, new and new+EXP_ENV on the same
# GPU, alternating new / exp / main twice. Checks first: gpu.kernels doctests, kbit-verify --quick
# over KERNELS (plain and under EXP_ENV), memcheck and racecheck over SAN_KERNELS. Output:
# $OUT/run.tar.gz and $OUT/summary.txt. BUDGET: seconds in all.
set -u
R=$PWD; T0=$SECONDS; BUDGET=${BUDGET:-540}
W=/tmp/ab3run; rm -rf $W; mkdir -p $W
finish() { tar -C $W -czf "$OUT/run.tar.gz" . ; cp $W/summary.txt "$OUT/" 2>/dev/null; }
trap finish EXIT
V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
s() { echo "$*" | tee -a $W/summary.txt; }
left() { echo $((BUDGET - (SECONDS - T0))); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | tee -a $W/summary.txt
(cd .deps/gpu && timeout 150 ./kbit_tests_kernels > $W/kernels.txt 2>&1); s "kernels rc=$? after $((SECONDS - T0)) s"
grep -E "assertions|Status" $W/kernels.txt | tee -a $W/summary.txt
timeout 150 "${V[@]}" --quick --kernels "$KERNELS" --json $W/verify.json > $W/verify.txt 2>&1
s "verify $KERNELS rc=$? after $((SECONDS - T0)) s"; tail -7 $W/verify.txt | tee -a $W/summary.txt
env $EXP_ENV timeout 120 "${V[@]}" --quick --kernels "$KERNELS" --filter "${EXP_FILTER:-qwen3|glm|random}" > $W/verify-exp.txt 2>&1
s "verify $EXP_ENV rc=$? after $((SECONDS - T0)) s"; tail -1 $W/verify-exp.txt | tee -a $W/summary.txt
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "${V[@]}" --quick --kernels "$SAN_KERNELS" --no-rerun \
  --filter "${SAN_FILTER:-random|qwen3}" > $W/memcheck.txt 2>&1
s "memcheck rc=$? after $((SECONDS - T0)) s"; tail -2 $W/memcheck.txt | tee -a $W/summary.txt
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "${V[@]}" --quick --kernels "$SAN_KERNELS" --no-rerun \
  --no-cublas --filter "${RACE_FILTER:-random}" > $W/racecheck.txt 2>&1
s "racecheck rc=$? after $((SECONDS - T0)) s"; tail -2 $W/racecheck.txt | tee -a $W/summary.txt
i=0
for arm in new exp main new exp main; do
  i=$((i + 1)); l=$(left); [ $l -lt 30 ] && break
  bin=kbit-bench; envs=""
  [ $arm = main ] && bin=kbit-bench-main
  [ $arm = exp ] && envs=$EXP_ENV
  env $envs timeout -s INT $((l / (7 - i) + 5)) .deps/gpu/$bin --shapes "$R/data/shapes.json" --git-commit "${GIT_COMMIT:-unknown}-$arm" \
    $BENCH_ARGS --json $W/bench-$i-$arm.json --csv $W/bench-$i-$arm.csv > $W/bench-$i-$arm.txt 2>&1
  s "bench $i $arm rc=$? after $((SECONDS - T0)) s"
done
