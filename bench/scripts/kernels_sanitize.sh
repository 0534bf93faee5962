#!/usr/bin/env bash
# Device-side check of the kernel library (run from the repo root on the GPU machine, binaries in
# .deps/gpu): the gpu.kernels doctest binary, then compute-sanitizer memcheck and racecheck over
# it, plus the SASS of the GEMV and MMA kernels. Output under $OUT.
set -u
cd .deps/gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
./kbit_tests_kernels > "$OUT/kernels.txt" 2>&1; echo "kernels rc=$?" | tee -a "$OUT/summary.txt"
timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 ./kbit_tests_kernels > "$OUT/memcheck.txt" 2>&1
echo "memcheck rc=$?" | tee -a "$OUT/summary.txt"
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 ./kbit_tests_kernels -tc="*MoE*,*graph*,*random bytes stay*" > "$OUT/racecheck.txt" 2>&1
echo "racecheck rc=$?" | tee -a "$OUT/summary.txt"
cuobjdump -sass libkbit_gpu.a > "$OUT/kbit_gpu.sass" 2>&1 || true
tail -3 "$OUT/kernels.txt" "$OUT/memcheck.txt" "$OUT/racecheck.txt"
