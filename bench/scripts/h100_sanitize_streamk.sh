#!/usr/bin/env bash
# compute-sanitizer over tcw's stream-K plan (repo root on the GPU machine; binaries in .deps/gpu):
# the forced-stream-K exact-mode doctest and full-sweep kbit-verify cases whose shapes take stream-K
# on their own (Llama-3-70B gate_up M = 16 / 128, GLM shared_experts.gate_up M = 64), under memcheck
# and racecheck, then gpu.kernels in full. Each step has its own timeout; logs land in
# $OUT/run.tar.gz on any exit, plus summary.txt.
set -u
R=$PWD; T0=$SECONDS
W=/tmp/sanrun; rm -rf $W; mkdir -p $W
finish() { tar -C $W -czf "$OUT/run.tar.gz" . ; cp $W/summary.txt "$OUT/" 2>/dev/null; }
trap finish EXIT
s() { echo "$*" | tee -a $W/summary.txt; }
V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
F=${SK_FILTER:-'llama-3-70b.mlp.gate_up/N57344.K8192/M(16|128)/k4|shared_experts.gate_up/N20480.K2048/M64/k2'}
(cd .deps/gpu && timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 ./kbit_tests_kernels -tc='*stream-K*' > $W/tc-memcheck.txt 2>&1)
s "doctest stream-K memcheck rc=$? after $((SECONDS - T0)) s"; tail -3 $W/tc-memcheck.txt | tee -a $W/summary.txt
(cd .deps/gpu && timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 ./kbit_tests_kernels -tc='*stream-K*' > $W/tc-racecheck.txt 2>&1)
s "doctest stream-K racecheck rc=$? after $((SECONDS - T0)) s"; tail -3 $W/tc-racecheck.txt | tee -a $W/summary.txt
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "${V[@]}" --full --kernels tcw --filter "$F" --json $W/verify-memcheck.json > $W/verify-memcheck.txt 2>&1
s "verify memcheck rc=$? after $((SECONDS - T0)) s"; tail -4 $W/verify-memcheck.txt | tee -a $W/summary.txt
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "${V[@]}" --full --kernels tcw --no-cublas --no-rerun --filter "$F" > $W/verify-racecheck.txt 2>&1
s "verify racecheck rc=$? after $((SECONDS - T0)) s"; tail -4 $W/verify-racecheck.txt | tee -a $W/summary.txt
(cd .deps/gpu && timeout 90 ./kbit_tests_kernels > $W/kernels.txt 2>&1); s "gpu.kernels rc=$? after $((SECONDS - T0)) s"
grep -E "assertions|Status" $W/kernels.txt | tee -a $W/summary.txt
