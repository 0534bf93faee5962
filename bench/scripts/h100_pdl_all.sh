#!/usr/bin/env bash
# PDL on every gemv/tcv/tcw launch against PDL on the latency variants only, one device call (repo
# root on the GPU machine; .deps/gpu: this build's binaries, kbit-bench-lat = the latency-only
# build, optionally kbit-bench-main = main's): gpu.kernels, memcheck and racecheck over the PDL
# doctests, kbit-verify --quick --pdl over the dense kernels, then kbit-bench `automatic` and
# `automatic_pdl` (BENCH) over ARMS (default "lat all"), REPS times (default 2), alternating.
# Logs land in $OUT/run.tar.gz on any exit.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/pdlall 560
pdl_doctest_checks 150 120 150
timeout 150 "${V[@]}" --quick --pdl --kernels gemv,tcv,tcw,automatic --json $W/verify-pdl.json > $W/verify-pdl.txt 2>&1
s "verify --pdl rc=$? after $((SECONDS - T0)) s"; tail -8 $W/verify-pdl.txt | tee -a $W/summary.txt
B=${BENCH:---models qwen3-coder-next glm-4.7-flash llama-3-8b --M 1 4 16 64 --bits 4 --dtypes f16}
i=0
for rep in $(seq ${REPS:-2}); do
  for arm in ${ARMS:-lat all}; do
    i=$((i + 1)); l=$(left); [ $l -lt 30 ] && break 2
    n=$(( ${REPS:-2} * $(echo ${ARMS:-lat all} | wc -w) ))
    case $arm in main) bin=kbit-bench-main; k=automatic;; lat) bin=kbit-bench-lat; k=automatic,automatic_pdl;;
                 all) bin=kbit-bench; k=automatic,automatic_pdl;; esac
    timeout -s INT $((l / (n + 1 - i) + 5)) .deps/gpu/$bin --shapes "$R/data/shapes.json" --git-commit "pdlall-$arm" $B \
      --kernels $k --json $W/bench-$i-$arm.json > $W/bench-$i-$arm.txt 2>&1
    s "bench $i $arm rc=$? after $((SECONDS - T0)) s"
  done
done
