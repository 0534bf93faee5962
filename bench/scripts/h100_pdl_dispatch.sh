#!/usr/bin/env bash
# Dispatch under LinearArgs::pdl, one device call (repo root on the GPU machine; .deps/gpu: this
# build's binaries): gpu.kernels, kbit-verify --quick --pdl over automatic, then kbit-bench with
# the per-kernel PDL rows and automatic_pdl (BENCH), REPS times. Logs land in $OUT/run.tar.gz.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/pdld 300
(cd .deps/gpu && timeout 120 ./kbit_tests_kernels > $W/kernels.txt 2>&1); s "kernels rc=$? after $((SECONDS - T0)) s"
grep -E "assertions|Status" $W/kernels.txt | tee -a $W/summary.txt
timeout 120 "${V[@]}" --quick --pdl --kernels automatic --json $W/verify-pdl.json \
  > $W/verify-pdl.txt 2>&1
s "verify --quick --pdl automatic rc=$? after $((SECONDS - T0)) s"; tail -1 $W/verify-pdl.txt | tee -a $W/summary.txt
B=${BENCH:---models qwen3-coder-next glm-4.7-flash llama-3-8b llama-3-70b --M 1 2 4 8 16 --bits 4 --dtypes f16}
for i in $(seq ${REPS:-2}); do
  l=$(left); [ $l -lt 30 ] && break
  timeout -s INT $((l / (${REPS:-2} + 1 - i) + 5)) .deps/gpu/kbit-bench --shapes "$R/data/shapes.json" \
    --git-commit pdl-dispatch $B --kernels gemv_pdl,tcv_pdl,tcw_pdl,automatic_pdl --json $W/bench-$i.json > $W/bench-$i.txt 2>&1
  s "bench $i rc=$? after $((SECONDS - T0)) s"
done
