#!/usr/bin/env bash
# MoeArgs::pdl, one device call (repo root on the GPU machine; .deps/gpu: this build's binaries,
# kbit-bench-prev = the build before the MoE change): gpu.kernels, memcheck and racecheck over the
# PDL doctests, kbit-verify --quick on the grouped kernels (plain launches) and --quick --pdl on
# every dense and grouped kernel, then kbit-bench `automatic` / `automatic_pdl` (BENCH) alternating
# prev / new, REPS times. Logs land in $OUT/run.tar.gz on any exit.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/pdlmoe 540
pdl_doctest_checks 150 120 150
timeout 100 "${V[@]}" --quick --kernels grouped_gemv,grouped_tcv,automatic --json $W/verify.json > $W/verify.txt 2>&1
s "verify --quick grouped rc=$? after $((SECONDS - T0)) s"; tail -1 $W/verify.txt | tee -a $W/summary.txt
timeout 120 "${V[@]}" --quick --pdl --kernels gemv,tcv,tcw,automatic,grouped_gemv,grouped_tcv --json $W/verify-pdl.json \
  > $W/verify-pdl.txt 2>&1
s "verify --quick --pdl rc=$? after $((SECONDS - T0)) s"; tail -9 $W/verify-pdl.txt | tee -a $W/summary.txt
B=${BENCH:---models qwen3-coder-next glm-4.7-flash --M 1 4 16 64 --bits 4 --dtypes f16}
arm_setup() { [ $1 = prev ] && BIN=.deps/gpu/kbit-bench-prev; }
bench_rotation pdlmoe prev new
