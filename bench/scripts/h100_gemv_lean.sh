#!/usr/bin/env bash
# gemv's step loop without zero fills, copies or 64-bit index math (two ping-pong buffers, one 32-bit
# block index, rows past N predicated only in the last row tile, activation rows past an item's
# rows clamped, the absmax scale in two instructions) against main before it, one call: GPU
# doctests (kernels + format), compute-sanitizer memcheck over the dense, split-K and MoE doctests,
# kbit-verify --quick on gemv + grouped_gemv + automatic, then kbit-bench gemv / grouped_gemv
# A/B/A/B on every catalogue shape at M = 1, 2, 4, k = 2..5, f16 (GEMV_RACECHECK=1: racecheck too).
# Binaries in .deps/gpu: this build's kbit_tests_kernels, kbit_tests_gpu, kbit-verify; kbit-bench
# built for the A/B with main's gemv kernels beside the new ones, picked by KBIT_GEMV_ARM (two
# kbit-bench binaries do not fit the call's 64 MiB). kbit_tests_kernels and kbit-verify
# are optional (doctests and memcheck; verify and ncu).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gemvlean ${GEMV_BUDGET:-540}
gpu_info
gpu_doctest format kbit_tests_gpu 30
if gpu_doctest kernels kbit_tests_kernels 60; then  # optional, as kbit-verify below
  (cd .deps/gpu && timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 ./kbit_tests_kernels \
    -tc='*dense kernels equal*,*split-K equal*,*MoE kernels equal*,*random bytes stay*' > "$W/memcheck.txt" 2>&1)
  s "memcheck dense + split-K + MoE doctests rc=$? after $((SECONDS - T0)) s"; tail -3 "$W/memcheck.txt" | tee -a "$W/summary.txt"
  if [ -n "${GEMV_RACECHECK:-}" ]; then  # gemv's shared-memory reduction and cluster split-K
    (cd .deps/gpu && timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 ./kbit_tests_kernels \
      -tc='*split-K equal*,*MoE kernels equal*' > "$W/racecheck.txt" 2>&1)
    s "racecheck split-K + MoE doctests rc=$? after $((SECONDS - T0)) s"; tail -3 "$W/racecheck.txt" | tee -a "$W/summary.txt"
  fi
fi
if [ -x .deps/gpu/kbit-verify ]; then  # not carried when the binaries would not fit the 64 MiB call
  timeout 90 "${V[@]}" --quick --kernels gemv,grouped_gemv,automatic > "$W/verify.txt" 2>&1
  s "verify --quick gemv,grouped_gemv,automatic rc=$? after $((SECONDS - T0)) s"; tail -8 "$W/verify.txt" | tee -a "$W/summary.txt"
fi
B="${GEMV_B:---M 1,2,4 --bits 2,3,4,5 --dtypes f16}"
# Arms (GEMV_ARMS, default main lean): main = main's kernels, lean = the new step loop, u1 = the
# new loop without its two-step unroll (one buffer copied per step), picked by KBIT_GEMV_ARM.
# GEMV_KERNELS (default gemv,grouped_gemv), GEMV_REPS (default 2) and GEMV_B (the sweep flags) for
# other sweeps and a record of one arm.
arm_setup() { KERNELS=${GEMV_KERNELS:-gemv,grouped_gemv}; ENV=KBIT_GEMV_ARM=$1; }
REPS=${GEMV_REPS:-2} MIN_LEFT=20 bench_rotation gemvlean ${GEMV_ARMS:-main lean}
# With time left: ncu of this build's gemv on the largest shape at M = 1, k = 4 and 2 (is it still
# issue-bound?), into $W/ncu.tar.gz; GEMV_NO_NCU=1 skips it.
l=$(left)
if [ "$l" -gt 45 ] && [ -x .deps/gpu/kbit-verify ] && [ -z "${GEMV_NO_NCU:-}" ]; then
  OUT=$W timeout $((l - 10)) bash bench/scripts/h100_ncu_profile.sh \
    "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/gemv" "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/gemv" \
    > "$W/ncu.log" 2>&1
  s "ncu rc=$? after $((SECONDS - T0)) s"
fi
