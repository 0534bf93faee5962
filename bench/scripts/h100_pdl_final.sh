#!/usr/bin/env bash
# Final check of the PDL build, one device call (repo root on the GPU machine; .deps/gpu: this
# build's binaries, kbit-bench-lat = e418917's): gpu.kernels, memcheck and racecheck over the PDL
# doctests, kbit-verify --quick (every kernel, plain launches) and --quick --pdl (dense automatic),
# then kbit-bench `automatic` / `automatic_pdl` (BENCH) alternating lat / final, REPS times.
# Logs land in $OUT/run.tar.gz on any exit.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/pdlfinal 560
pdl_doctest_checks 150 120 150
timeout 200 "${V[@]}" --quick --json $W/verify.json > $W/verify.txt 2>&1
s "verify --quick rc=$? after $((SECONDS - T0)) s"; tail -14 $W/verify.txt | tee -a $W/summary.txt
timeout 120 "${V[@]}" --quick --pdl --kernels automatic --json $W/verify-pdl.json > $W/verify-pdl.txt 2>&1
s "verify --quick --pdl automatic rc=$? after $((SECONDS - T0)) s"; tail -1 $W/verify-pdl.txt | tee -a $W/summary.txt
B=${BENCH:---models qwen3-coder-next glm-4.7-flash llama-3-8b --M 1 4 16 64 --bits 4 --dtypes f16}
arm_setup() { [ $1 = lat ] && BIN=.deps/gpu/kbit-bench-lat; }
bench_rotation pdlfinal lat final
