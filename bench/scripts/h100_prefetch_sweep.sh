#!/usr/bin/env bash
# L2 prefetch distance sweep (experiment): the same kbit-bench selection run with the binaries of
# the base commit (.deps/base) and of the prefetch build (.deps/gpu) at several distances
# (KBIT_TCV_PF / KBIT_GEMV_PF: steps or k-tiles of a warp beyond the register prefetch, 0 = off),
# one after the other in one device call so every row compares on the same GPU. Results (one CSV
# per configuration) in $OUT/prefetch.tar.gz, plus summary.txt. The prefetch build is main with
# bench/results/2026-11-25-h100-prefetch/prefetch-experiment.patch applied (the variables exist
# only there; main's binaries ignore them).
set -u
R=$PWD
W=/tmp/pfsweep; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/gpu.txt
SEL=(--shapes "$R/data/shapes.json" --models ${MODELS:-llama-3-70b qwen3-coder-next} --M ${BENCH_M:-1 2 4 8 16}
     --bits ${BENCH_BITS:-2 3 4} --dtypes f16 --kernels ${KERNELS:-gemv tcv})
run() {  # name, binary dir, env...
  local name=$1 dir=$2; shift 2
  env "$@" timeout -s INT 150 $dir/kbit-bench "${SEL[@]}" --csv $W/$name.csv > $W/$name.txt 2>&1
  echo "$name rc=$? $*" | tee -a $W/summary.txt
}
run base .deps/base
for pf in ${PFS:-0 1 2 4}; do run pf$pf .deps/gpu KBIT_TCV_PF=$pf KBIT_GEMV_PF=$pf; done
run base2 .deps/base
tar -C $W -czf "$OUT/prefetch.tar.gz" .
cp $W/summary.txt $W/gpu.txt "$OUT/"
# ncu of tcv and gemv at k = 2, M = 1 on the largest shape (base binaries; one verified launch each,
# clocks left alone): where the k = 2 tcv stalls.
if [ "${NCU:-1}" = 1 ]; then
  for c in "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/tcv" "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M8/k2/f16/tcv" \
           "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/gemv"; do
    tag=$(echo "$c" | cut -d/ -f4,5,7 | tr '/' '_')
    timeout 90 ncu --clock-control none --kernel-name regex:'tcv_kernel|gemv_kernel' --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
      --page raw \
      .deps/base/kbit-verify --case "$c" --no-cublas --no-rerun --no-exact --shapes data/shapes.json > $W/ncu_$tag.txt 2>&1
    echo "ncu $c rc=$?" >> $W/summary.txt
    grep -E "issue_stalled.*ratio|warps_active.avg.pct|dram__throughput.avg.pct|gpu__time_duration.sum|issue_active|launch__registers|launch__grid_size|lts__t_sector_hit_rate.pct" $W/ncu_$tag.txt \
      | grep -vE "_not_issued|\.max |\.min " | awk '{ if ($0 ~ /stalled/) { if ($3+0 > 0.2) print } else print }' >> $W/summary.txt
  done
  tar -C $W -czf "$OUT/prefetch.tar.gz" .
  cp $W/summary.txt "$OUT/"
fi
cat $W/summary.txt
