#!/usr/bin/env bash
# tcv's k = 4 pair table (dense from kTcvPairsMinWeights, grouped always) checked and timed in one
# device call (repo root on the GPU machine, binaries in .deps/gpu, main's kbit-bench as
# .deps/gpu/kbit-bench-main): compute-sanitizer memcheck and racecheck on the one-hot doctest (which
# forces the dense pair table on small shapes), ncu pipe/stall profile of the new tcv (CASES of
# h100_pipe_util.sh), then h100_ab_check.sh (doctests, kbit-verify --quick, memcheck/racecheck on
# the quick cases, kbit-bench new/main/new/main). Output: $OUT/sanitize-onehot.txt, $OUT/pipes.txt,
# $OUT/run.tar.gz, $OUT/summary.txt.
set -u
(cd .deps/gpu && for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 ./kbit_tests_kernels -tc='*one-hot*' 2>&1 | tail -4
  echo "onehot $tool rc=${PIPESTATUS[0]}"
done) > $OUT/sanitize-onehot.txt 2>&1
cat $OUT/sanitize-onehot.txt
G=dense/llama-3-70b.mlp.gate_up/N57344.K8192
CASES="${CASES:-$G/M1/k4/f16/tcv $G/M8/k4/f16/tcv $G/M1/k4/f16/gemv}" bash bench/scripts/h100_pipe_util.sh > /dev/null 2>&1
tar -C $OUT -czf $OUT/ncu-raw.tar.gz $(cd $OUT && ls raw_*.gz) && rm -f $OUT/raw_*.gz
grep -E "==|duration|dram__throughput|issue_active|warps_active|registers" $OUT/pipes.txt
bash bench/scripts/h100_ab_check.sh
