#!/usr/bin/env bash
# Forty-first session: where a gemv warp's time goes at M = 1 on the H200. kbit_tests_kernels with gemv.cu and the
# test file compiled with -DKBIT_GEMV_TIMELINE=1 (the rest of the build as main), stripped, carried as
# .deps/tl/kbit_tests_kernels. Runs the doctest "gpu: gemv timeline ..." (Llama-3-70B gate_up at k = 4 and 2,
# Llama-3-70B q_proj and Llama-3-8B gate_up at k = 4; M = 1, f16) with its CSV into $W/timeline.csv.gz, then
# bench/scripts/gemv_timeline.py over it into the summary. Env: BUDGET (default 90 s).
# The build (here, after `make kbit_tests_kernels` in build/): compile the two files with the flags of
# build/kernels/CMakeFiles/kbit_gpu.dir/flags.make and build/tests/CMakeFiles/kbit_tests_kernels.dir/flags.make plus
# -DKBIT_GEMV_TIMELINE=1, put the gemv object into a copy of build/kernels/libkbit_gpu.a (ar r), link with the command
# of build/tests/CMakeFiles/kbit_tests_kernels.dir/link.txt against that copy, strip into .deps/tl/. E.g. in build/kernels:
#   nvcc -DKBIT_HAVE_SM90A=1 -DKBIT_GEMV_TIMELINE=1 --options-file CMakeFiles/kbit_gpu.dir/includes_CUDA.rsp -O3 \
#     --generate-code=arch=compute_90a,code=[compute_90a,sm_90a] -Xcompiler=-fPIC -std=c++20 -c ../../kernels/gemv.cu \
#     -o /tmp/tl/gemv.cu.o
# and the test file likewise in build/tests. The first run (2026-11-28, -h200-gemvtl) used a form of the knob whose
# stamps waited on a global load each; the knob now keeps its pointers in registers.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/tlrun ${BUDGET:-90}
gpu_info
(cd .deps/tl && KBIT_GEMV_TIMELINE_OUT=$W/timeline.csv timeout 60 ./kbit_tests_kernels -tc='*gemv timeline*' \
  > "$W/kernels.txt" 2>&1); s "timeline doctest rc=$? after $((SECONDS - T0)) s"
grep -E 'assertions|Status|ERROR' "$W/kernels.txt" | tee -a "$W/summary.txt"
python3 bench/scripts/gemv_timeline.py "$W/timeline.csv" | tee -a "$W/summary.txt"
gzip -9 "$W/timeline.csv"
