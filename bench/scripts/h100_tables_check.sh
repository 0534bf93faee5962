#!/usr/bin/env bash
# Device-side record of the register-table decodes (tcv at k = 2, 3; gemv's k = 2 pair table at
# M >= 2; gemv's wave-balanced split-K). Run from the repo root on the GPU machine, binaries in
# .deps/gpu; what comes back lands in $OUT (at most 8 files). Two phases, one device call each:
#   PHASE=bench   kbit-bench at k = 2..5 (f16, M = 1..16, four models, gemv / tcv / automatic and the
#                 grouped forms; every timed row verified first), then the gpu.kernels doctests and
#                 kbit-verify --quick on the kernels that changed.
#   PHASE=check   kbit-verify --full on the k = 2, 3 cases of those kernels, compute-sanitizer
#                 memcheck and racecheck (no cuBLAS) on their quick k = 2, 3 cases.
set -u
R=$PWD
T0=$SECONDS
W=/tmp/tables; rm -rf $W; mkdir -p $W
V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
KS=gemv,tcv,grouped_gemv,grouped_tcv,automatic
say() { echo "$*" | tee -a $W/summary.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/gpu.txt
cat $W/gpu.txt

if [ "${PHASE:-bench}" = bench ]; then
  timeout -s INT "${BENCH_LIMIT:-330}" .deps/gpu/kbit-bench --shapes "$R/data/shapes.json" --git-commit "${GIT_COMMIT:-unknown}" \
    --models llama-3-70b llama-3-8b qwen3-coder-next glm-4.7-flash --M ${BENCH_M:-1 2 4 8 16} --bits ${BENCH_BITS:-2 3 4 5} \
    --dtypes f16 --kernels gemv tcv automatic grouped_gemv grouped_tcv \
    --json $W/bench.json --markdown $W/bench.md --csv $W/bench.csv > $W/bench.txt 2>&1
  say "bench rc=$? after $((SECONDS - T0)) s"
  grep -E "^TOTAL|dispatch audit" $W/bench.txt | tee -a $W/summary.txt
  (cd .deps/gpu && ./kbit_tests_kernels > $W/kernels.txt 2>&1); say "gpu.kernels rc=$? after $((SECONDS - T0)) s"
  tail -2 $W/kernels.txt | tee -a $W/summary.txt
  "${V[@]}" --quick --kernels $KS --repro-dir $W/repro > $W/verify-quick.txt 2>&1
  say "verify --quick --kernels $KS rc=$? after $((SECONDS - T0)) s"
  sed -n '/^family.kernel/,$p' $W/verify-quick.txt | tail -20 | tee -a $W/summary.txt
  gzip -9 $W/bench.txt $W/bench.json $W/verify-quick.txt
  cp $W/summary.txt $W/bench.md $W/bench.csv $W/bench.json.gz $W/bench.txt.gz $W/gpu.txt "$OUT/"
  tar -C $W -czf "$OUT/logs.tar.gz" kernels.txt verify-quick.txt.gz repro 2>/dev/null
else
  "${V[@]}" --full --kernels $KS --filter '/k[23]/' --threads 16 --repro-dir $W/repro > $W/verify-full-k23.txt 2>&1
  say "verify --full --kernels $KS --filter /k[23]/ rc=$? after $((SECONDS - T0)) s"
  sed -n '/^family.kernel/,$p' $W/verify-full-k23.txt | tail -20 | tee -a $W/summary.txt
  CS=compute-sanitizer
  command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
  SAN=(--quick --kernels gemv,tcv,grouped_gemv,grouped_tcv --no-cublas --no-rerun --filter '/k[23]/' --threads 8)
  timeout 170 $CS --tool memcheck --error-exitcode 9 "${V[@]}" "${SAN[@]}" > $W/memcheck.txt 2>&1
  say "memcheck k=2,3 rc=$? after $((SECONDS - T0)) s"
  grep -E "cases in|ERROR SUMMARY" $W/memcheck.txt | tee -a $W/summary.txt
  timeout 170 $CS --tool racecheck --racecheck-report hazard --error-exitcode 9 "${V[@]}" "${SAN[@]}" --no-exact \
    > $W/racecheck.txt 2>&1
  say "racecheck k=2,3 rc=$? after $((SECONDS - T0)) s"
  grep -E "cases in|RACECHECK SUMMARY" $W/racecheck.txt | tee -a $W/summary.txt
  gzip -9 $W/verify-full-k23.txt $W/memcheck.txt $W/racecheck.txt
  cp $W/summary.txt $W/gpu.txt $W/verify-full-k23.txt.gz $W/memcheck.txt.gz $W/racecheck.txt.gz "$OUT/"
fi
