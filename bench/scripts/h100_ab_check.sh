#!/usr/bin/env bash
# A kernel change checked and timed against main in one device call (repo root on the GPU
# machine; binaries in .deps/gpu, main's kbit-bench as .deps/gpu/kbit-bench-main): gpu.kernels
# exact-mode doctests, kbit-verify --quick over KERNELS, memcheck and racecheck over the quick cases
# of SAN_KERNELS matching SAN_FILTER, then the same kbit-bench (BENCH_ARGS) with the new binary and
# with main's, alternating A/B/A/B so drift shows. EXP_ENV (optional, e.g. KBIT_EXP_X=1: an
# experiment switch read by the new build only) adds a third arm, the new binary under that
# environment, verified on the quick cases matching EXP_FILTER and timed as new / exp / main twice
# (bench-I-exp.*). Each step has its own timeout; whatever finished lands in $OUT/run.tar.gz on any
# exit, plus summary.txt. BUDGET: seconds in all.
set -u
R=$PWD; T0=$SECONDS; BUDGET=${BUDGET:-420}
W=/tmp/abrun; rm -rf $W; mkdir -p $W
finish() { tar -C $W -czf "$OUT/run.tar.gz" . ; cp $W/summary.txt "$OUT/" 2>/dev/null; }
trap finish EXIT
V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
s() { echo "$*" | tee -a $W/summary.txt; }
left() { echo $((BUDGET - (SECONDS - T0))); }
(cd .deps/gpu && timeout 150 ./kbit_tests_kernels > $W/kernels.txt 2>&1); s "kernels rc=$? after $((SECONDS - T0)) s"
grep -E "assertions|Status" $W/kernels.txt | tee -a $W/summary.txt
timeout 150 "${V[@]}" --quick --kernels "${KERNELS:-tcw,automatic}" --json $W/verify.json > $W/verify.txt 2>&1
s "verify ${KERNELS:-tcw,automatic} rc=$? after $((SECONDS - T0)) s"; tail -6 $W/verify.txt | tee -a $W/summary.txt
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "${V[@]}" --quick --kernels "${SAN_KERNELS:-tcw}" --no-rerun \
  --filter "${SAN_FILTER:-random|qwen3}" > $W/memcheck.txt 2>&1
s "memcheck rc=$? after $((SECONDS - T0)) s"; tail -2 $W/memcheck.txt | tee -a $W/summary.txt
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "${V[@]}" --quick --kernels "${SAN_KERNELS:-tcw}" --no-rerun \
  --no-cublas --filter "${RACE_FILTER:-random}" > $W/racecheck.txt 2>&1
s "racecheck rc=$? after $((SECONDS - T0)) s"; tail -2 $W/racecheck.txt | tee -a $W/summary.txt
arms=(kbit-bench kbit-bench-main kbit-bench kbit-bench-main)
if [ -n "${EXP_ENV:-}" ]; then
  env $EXP_ENV timeout 120 "${V[@]}" --quick --kernels "${KERNELS:-tcw,automatic}" --filter "${EXP_FILTER:-qwen3|glm|random}" \
    > $W/verify-exp.txt 2>&1
  s "verify under $EXP_ENV rc=$? after $((SECONDS - T0)) s"; tail -1 $W/verify-exp.txt | tee -a $W/summary.txt
  arms=(kbit-bench exp kbit-bench-main kbit-bench exp kbit-bench-main)
fi
i=0
for arm in "${arms[@]}"; do
  i=$((i + 1)); l=$(left); [ $l -lt 40 ] && break
  bin=$arm; envs=""
  [ $arm = exp ] && bin=kbit-bench && envs=$EXP_ENV
  env $envs timeout -s INT $((l / (${#arms[@]} + 1 - i) + 5)) .deps/gpu/$bin --shapes "$R/data/shapes.json" \
    --git-commit "${GIT_COMMIT:-unknown}-$arm" ${BENCH_ARGS:---M 16 32 64 128 256 512 --dtypes f16 --kernels tcw} \
    --json $W/bench-$i-$arm.json --csv $W/bench-$i-$arm.csv > $W/bench-$i-$arm.txt 2>&1
  s "bench $i $arm rc=$? after $((SECONDS - T0)) s"
done
