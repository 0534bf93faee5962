#!/usr/bin/env bash
# The MoE prologue candidate (block-wide offsets scan, codebook loaded before the wait:
# bench/results/2026-11-25-h100-moeprologue/moe-prologue-candidate.patch applied), one device
# call; repo root on the GPU machine, .deps/gpu: this build's binaries. Every GPU doctest, memcheck
# and racecheck over the PDL and MoE doctests, kbit-verify --quick on every MoE kernel (plain and
# --pdl), then kbit-bench `automatic` / `automatic_pdl` (BENCH), this build and main's alternating,
# REPS times each. Logs land in $OUT/run.tar.gz on any exit.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/moefinal ${BUDGET:-480}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$W/summary.txt"
(cd .deps/gpu && timeout 100 ./kbit_tests_kernels > "$W/kernels.txt" 2>&1); s "kernels rc=$? after $((SECONDS - T0)) s"
grep -E "assertions|Status|programmatic|ERROR" "$W/kernels.txt" | head -20 | tee -a "$W/summary.txt"
for tool in memcheck racecheck; do
  (cd .deps/gpu && timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 ./kbit_tests_kernels \
    -tc='*pdl*,*PDL*,*MoE kernels*' > "$W/$tool.txt" 2>&1); s "$tool pdl+moe doctests rc=$? after $((SECONDS - T0)) s"
  tail -3 "$W/$tool.txt" | tee -a "$W/summary.txt"
done
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
n=$(( ${REPS:-2} * 2 )); i=0
for rep in $(seq ${REPS:-2}); do
  for arm in new prev; do
    i=$((i + 1)); l=$(left); [ $l -lt 25 ] && break 2
    bin=.deps/gpu/kbit-bench; [ $arm = prev ] && bin=.deps/prev/kbit-bench-prev
    [ -x $bin ] || { s "bench $i $arm: no $bin"; continue; }
    timeout -s INT $((l / (n + 1 - i) + 5)) $bin --shapes "$R/data/shapes.json" --git-commit "moefinal-$arm" $B \
      --kernels automatic,automatic_pdl --json $W/bench-$i-$arm.json > $W/bench-$i-$arm.txt 2>&1
    s "bench $i $arm rc=$? after $((SECONDS - T0)) s"
  done
done
