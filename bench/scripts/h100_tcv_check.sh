#!/usr/bin/env bash
# Device-side check of the tcv kernel (run from the repo root on the GPU machine, binaries in
# .deps/gpu): the gpu.kernels exact-mode doctest, kbit-verify --quick on tcv and grouped_tcv, compute-sanitizer
# memcheck + racecheck on a subset of the tcv and grouped_tcv cases, then kbit-bench at M = 1..16 on the four
# models with gemv, tcv and mma side by side. Everything lands in $OUT (at most 8 files).
# Env: BENCH_BITS (default 4), BENCH_M (default 1,2,4,8,16), SAN_FILTER (regex of the sanitized cases).
set -u
R=$PWD
T0=$SECONDS
W=/tmp/tcvrun; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/gpu.txt
(cd .deps/gpu && ./kbit_tests_kernels > $W/kernels.txt 2>&1); echo "kernels rc=$? after $((SECONDS - T0)) s" | tee $W/summary.txt
tail -3 $W/kernels.txt
V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
"${V[@]}" --quick --kernels tcv,grouped_tcv --json $W/verify-tcv.json --repro-dir $W/repro > $W/verify-tcv.txt 2>&1
echo "verify quick tcv rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
tail -2 $W/verify-tcv.txt
SAN=${SAN_FILTER:-'(adversarial|random|qwen3-coder-next[./]attn.k_proj|glm-4.7-flash[./]attn.kv_a|experts).*/[MT](1|5|8|9|16|33)/'}
CS=compute-sanitizer
command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
timeout 150 $CS --tool memcheck --error-exitcode 9 "${V[@]}" --quick --kernels tcv,grouped_tcv --no-rerun --filter "$SAN" \
  > $W/memcheck.txt 2>&1
echo "memcheck rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
tail -3 $W/memcheck.txt
timeout 150 $CS --tool racecheck --racecheck-report hazard --error-exitcode 9 "${V[@]}" --quick --kernels tcv,grouped_tcv --no-rerun \
  --no-cublas --filter "$SAN" > $W/racecheck.txt 2>&1
echo "racecheck rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
tail -3 $W/racecheck.txt
left=$((570 - (SECONDS - T0)))
if [ $left -gt 30 ]; then
  timeout -s INT $left .deps/gpu/kbit-bench --shapes "$R/data/shapes.json" --git-commit "${GIT_COMMIT:-unknown}" \
    --M "${BENCH_M:-1,2,4,8,16}" --bits "${BENCH_BITS:-4}" --dtypes f16 --kernels "${BENCH_KERNELS:-gemv,tcv,mma,automatic,grouped_gemv,grouped_tcv,grouped_mma}" \
    --json $W/bench.json --markdown $W/bench.md > $W/bench.txt 2>&1
  echo "bench rc=$? after $((SECONDS - T0)) s" | tee -a $W/summary.txt
fi
# ncu on tcv (and gemv at M = 1 for comparison), one verified launch each, clocks left alone.
if [ "${NCU:-1}" = 1 ] && [ $((SECONDS - T0)) -lt 480 ]; then
  for c in "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/tcv" "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M8/k4/f16/tcv" \
           "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M16/k4/f16/tcv" "dense/qwen3-coder-next.attn.k_proj/N512.K2048/M1/k4/f16/tcv"; do
    tag=$(echo "$c" | cut -d/ -f2,4,5,7 | tr '/' '_')
    timeout 60 ncu --clock-control none --kernel-name regex:'tcv_kernel|gemv_kernel' --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
      .deps/gpu/kbit-verify --case "$c" --no-cublas --no-rerun --no-exact --shapes data/shapes.json > $W/ncu_$tag.txt 2>&1
    echo "ncu $c rc=$?" >> $W/summary.txt
    grep -E "DRAM Throughput|Duration|Issue Slots Busy|No Eligible|Achieved Occupancy|Registers Per Thread|Warp Cycles Per Issued|Grid Size|Stall" $W/ncu_$tag.txt | head -20 >> $W/summary.txt
  done
fi
tar -C $W -czf "$OUT/tcv-run.tar.gz" .
cp $W/summary.txt $W/bench.txt "$OUT/" 2>/dev/null
grep -E "tcv|gemv" $W/bench.txt | head -60
