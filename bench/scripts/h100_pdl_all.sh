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
arm_setup() {
  case $1 in main) BIN=.deps/gpu/kbit-bench-main; KERNELS=automatic;; lat) BIN=.deps/gpu/kbit-bench-lat;; esac
}
bench_rotation pdlall ${ARMS:-lat all}
