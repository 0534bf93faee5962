#!/usr/bin/env bash
# Final check of the PDL build, one device call (repo root on the GPU machine; .deps/gpu: this
# build's binaries, kbit-bench-lat = e418917's): gpu.kernels, memcheck and racecheck over the PDL
# doctests, kbit-verify --quick (every kernel, plain launches) and --quick --pdl (dense automatic),
# then kbit-bench `automatic` / `automatic_pdl` (BENCH) alternating lat / final, REPS times.
# Logs land in $OUT/run.tar.gz on any exit.
set -u
R=$PWD; T0=$SECONDS; BUDGET=${BUDGET:-560}
W=/tmp/pdlfinal; rm -rf $W; mkdir -p $W
finish() { tar -C $W -czf "$OUT/run.tar.gz" . ; cp $W/summary.txt "$OUT/" 2>/dev/null; }
trap finish EXIT
V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
s() { echo "$*" | tee -a $W/summary.txt; }
left() { echo $((BUDGET - (SECONDS - T0))); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | tee -a $W/summary.txt
(cd .deps/gpu && timeout 150 ./kbit_tests_kernels > $W/kernels.txt 2>&1); s "kernels rc=$? after $((SECONDS - T0)) s"
grep -E "assertions|Status|programmatic|ERROR" $W/kernels.txt | head -20 | tee -a $W/summary.txt
(cd .deps/gpu && timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 ./kbit_tests_kernels -tc='*pdl*' \
  > $W/memcheck.txt 2>&1); s "memcheck pdl doctests rc=$? after $((SECONDS - T0)) s"; tail -3 $W/memcheck.txt | tee -a $W/summary.txt
(cd .deps/gpu && timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 ./kbit_tests_kernels -tc='*pdl*' \
  > $W/racecheck.txt 2>&1); s "racecheck pdl doctests rc=$? after $((SECONDS - T0)) s"; tail -3 $W/racecheck.txt | tee -a $W/summary.txt
timeout 200 "${V[@]}" --quick --json $W/verify.json > $W/verify.txt 2>&1
s "verify --quick rc=$? after $((SECONDS - T0)) s"; tail -14 $W/verify.txt | tee -a $W/summary.txt
timeout 120 "${V[@]}" --quick --pdl --kernels automatic --json $W/verify-pdl.json > $W/verify-pdl.txt 2>&1
s "verify --quick --pdl automatic rc=$? after $((SECONDS - T0)) s"; tail -1 $W/verify-pdl.txt | tee -a $W/summary.txt
B=${BENCH:---models qwen3-coder-next glm-4.7-flash llama-3-8b --M 1 4 16 64 --bits 4 --dtypes f16}
n=$(( ${REPS:-2} * 2 )); i=0
for rep in $(seq ${REPS:-2}); do
  for arm in lat final; do
    i=$((i + 1)); l=$(left); [ $l -lt 30 ] && break 2
    bin=kbit-bench; [ $arm = lat ] && bin=kbit-bench-lat
    timeout -s INT $((l / (n + 1 - i) + 5)) .deps/gpu/$bin --shapes "$R/data/shapes.json" --git-commit "pdlfinal-$arm" $B \
      --kernels automatic,automatic_pdl --json $W/bench-$i-$arm.json > $W/bench-$i-$arm.txt 2>&1
    s "bench $i $arm rc=$? after $((SECONDS - T0)) s"
  done
done
