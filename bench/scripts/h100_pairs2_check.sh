#!/usr/bin/env bash
# Device-side check and record of the k = 2 adjacent-pair tcv decode (repo root on the GPU machine;
# new binaries in .deps/gpu, the previous main's in .deps/base for a same-call baseline). Steps:
# gpu.kernels doctests, kbit-verify --quick on every kernel of the changed files, --full on their
# k = 2 cases, memcheck + racecheck (no cuBLAS) on the quick k = 2 cases, then kbit-bench at k = 2
# (and 4 as a control) with the base and the new binaries, M = 1..16, four models. $OUT: summary,
# bench reports of both, logs.
set -u
R=$PWD
T0=$SECONDS
W=/tmp/pairs2; rm -rf $W; mkdir -p $W
say() { echo "$*" | tee -a $W/summary.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/gpu.txt
V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
KS=gemv,tcv,grouped_gemv,grouped_tcv,automatic
(cd .deps/gpu && ./kbit_tests_kernels > $W/kernels.txt 2>&1); say "gpu.kernels rc=$? after $((SECONDS - T0)) s"
tail -2 $W/kernels.txt | tee -a $W/summary.txt
"${V[@]}" --quick --kernels $KS --repro-dir $W/repro > $W/verify-quick.txt 2>&1
say "verify --quick --kernels $KS rc=$? after $((SECONDS - T0)) s"; tail -1 $W/verify-quick.txt | tee -a $W/summary.txt
"${V[@]}" --full --kernels tcv,grouped_tcv,automatic --filter '/k2/' --threads 16 --repro-dir $W/repro > $W/verify-full-k2.txt 2>&1
say "verify --full --kernels tcv,grouped_tcv,automatic --filter /k2/ rc=$? after $((SECONDS - T0)) s"
sed -n '/^family.kernel/,$p' $W/verify-full-k2.txt | tee -a $W/summary.txt
CS=compute-sanitizer
command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
SAN=(--quick --kernels tcv,grouped_tcv --no-cublas --no-rerun --filter '/k2/' --threads 8)
timeout 120 $CS --tool memcheck --error-exitcode 9 "${V[@]}" "${SAN[@]}" > $W/memcheck.txt 2>&1
say "memcheck tcv k=2 rc=$? after $((SECONDS - T0)) s"; grep -E "cases in|ERROR SUMMARY" $W/memcheck.txt | tee -a $W/summary.txt
timeout 150 $CS --tool racecheck --racecheck-report hazard --error-exitcode 9 "${V[@]}" "${SAN[@]}" --no-exact > $W/racecheck.txt 2>&1
say "racecheck tcv k=2 rc=$? after $((SECONDS - T0)) s"; grep -E "cases in|RACECHECK SUMMARY" $W/racecheck.txt | tee -a $W/summary.txt
for b in base gpu; do
  timeout -s INT 120 .deps/$b/kbit-bench --shapes "$R/data/shapes.json" --git-commit "${GIT_COMMIT:-unknown}-$b" \
    --models llama-3-70b llama-3-8b qwen3-coder-next glm-4.7-flash --M 1 2 4 8 16 --bits 2 4 --dtypes f16 \
    --kernels gemv tcv automatic grouped_gemv grouped_tcv \
    --json $W/bench-$b.json --markdown $W/bench-$b.md --csv $W/bench-$b.csv > $W/bench-$b.txt 2>&1
  say "bench $b rc=$? after $((SECONDS - T0)) s"
  grep -E "dispatch audit" $W/bench-$b.txt | tee -a $W/summary.txt
done
gzip -9 $W/*.txt $W/*.json 2>/dev/null; gunzip $W/summary.txt.gz $W/gpu.txt.gz
cp $W/summary.txt $W/gpu.txt $W/bench-gpu.md $W/bench-gpu.csv $W/bench-base.csv "$OUT/"
tar -C $W -czf "$OUT/logs.tar.gz" --exclude='*.csv' --exclude='*.md' .
cat $W/summary.txt
