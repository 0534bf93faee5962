#!/usr/bin/env bash
# A dispatch change checked in one device call (repo root on the GPU machine, binaries in
# .deps/gpu): gpu.kernels doctests, kbit-verify --quick over automatic and moe.automatic, memcheck
# over their quick cases (SAN_FILTER), then one kbit-bench run (BENCH_ARGS) whose automatic rows
# and dispatch audit compare the new choice with every kernel in the same run. Output:
# $OUT/run.tar.gz and $OUT/summary.txt.
set -u
R=$PWD; T0=$SECONDS
W=/tmp/disprun; rm -rf $W; mkdir -p $W
finish() { tar -C $W -czf "$OUT/run.tar.gz" . ; cp $W/summary.txt "$OUT/" 2>/dev/null; }
trap finish EXIT
V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
s() { echo "$*" | tee -a $W/summary.txt; }
(cd .deps/gpu && timeout 150 ./kbit_tests_kernels > $W/kernels.txt 2>&1); s "kernels rc=$? after $((SECONDS - T0)) s"
grep -E "assertions|Status" $W/kernels.txt | tee -a $W/summary.txt
timeout 150 "${V[@]}" --quick --kernels automatic,moe.automatic --json $W/verify.json > $W/verify.txt 2>&1
s "verify automatic rc=$? after $((SECONDS - T0)) s"; tail -4 $W/verify.txt | tee -a $W/summary.txt
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "${V[@]}" --quick --kernels automatic,moe.automatic --no-rerun \
  --filter "${SAN_FILTER:-random|qwen3}" > $W/memcheck.txt 2>&1
s "memcheck rc=$? after $((SECONDS - T0)) s"; tail -2 $W/memcheck.txt | tee -a $W/summary.txt
timeout -s INT 240 .deps/gpu/kbit-bench --shapes "$R/data/shapes.json" --git-commit "${GIT_COMMIT:-unknown}" \
  ${BENCH_ARGS:---M 1 2 4 8 16 --dtypes f16} --json $W/bench.json --csv $W/bench.csv --markdown $W/bench.md > $W/bench.txt 2>&1
s "bench rc=$? after $((SECONDS - T0)) s"; grep -E "dispatch audit" $W/bench.txt | tee -a $W/summary.txt
