#!/usr/bin/env bash
# The MoE prologue candidate (block-wide offsets scan, codebook loaded before the wait:
# bench/results/2026-11-25-h100-moeprologue/moe-prologue-candidate.patch applied), one device
# call; repo root on the GPU machine, .deps/gpu: this build's binaries. Every GPU doctest, memcheck
# and racecheck over the PDL and MoE doctests, kbit-verify --quick on every MoE kernel (plain and
# --pdl), then kbit-bench `automatic` / `automatic_pdl` (BENCH), this build and main's alternating,
# REPS times each. Logs land in $OUT/run.tar.gz on any exit.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/moefinal 480
pdl_doctest_checks 100 150 150 '*pdl*,*PDL*,*MoE kernels*'
timeout 90 "${V[@]}" --quick --kernels v0,grouped_gemv,grouped_tcv,grouped_mma,automatic --filter '^moe/' \
  --json $W/verify.json > $W/verify.txt 2>&1
s "verify --quick moe rc=$? after $((SECONDS - T0)) s"; tail -8 $W/verify.txt | tee -a $W/summary.txt
timeout 90 "${V[@]}" --quick --pdl --kernels grouped_gemv,grouped_tcv,automatic --filter '^moe/' \
  --json $W/verify-pdl.json > $W/verify-pdl.txt 2>&1
s "verify --quick --pdl moe rc=$? after $((SECONDS - T0)) s"; tail -1 $W/verify-pdl.txt | tee -a $W/summary.txt
B=${BENCH:---models qwen3-coder-next glm-4.7-flash --M 1,2,4,8,16,32,64,512 --bits 4 --dtypes f16}
# new / prev alternating; prev = .deps/prev/kbit-bench-prev (main before the change), skipped when
# absent. Since the recorded results were compressed (tree 39 MiB) it fits in the same call's carry
# beside this build (carry both .txz files and unpack both before running this script).
arm_setup() { [ $1 = prev ] && BIN=.deps/prev/kbit-bench-prev; }
MIN_LEFT=25 bench_rotation moefinal new prev
