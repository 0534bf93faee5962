#!/usr/bin/env bash
# slice_range (kernels/common.cuh) in 32-bit arithmetic instead of a 64-bit division at the start of
# every split-K CTA of gemv, tcv, tcw and mma, one call: GPU doctests (kernels + format),
# compute-sanitizer memcheck over the dense and split-K doctests, kbit-verify --quick on the dense
# kernels, then kbit-bench A/B in rotation: old = .deps/gpu/kbit-bench-old (built before the change,
# f42c1b5 + the interleave switch left off), new = this build, over every catalogue shape at
# M = 1, 2, 4, 8, k = 4, f16, kernels gemv, tcv, tcw, automatic_pdl. Env: SL_B, SL_REPS (default 3),
# SL_BUDGET (default 420 s), SL_ARMS (default old new). The two kbit-bench binaries do not fit one
# call's 64 MiB (compressed fatbins): run on 2026-11-26 as two calls on the same warm H100, SL_ARMS=old
# with only kbit-bench-old carried, then SL_ARMS=new with this build (checks included); then in one
# call with a build carrying a temporary switch, SL_ARMS="wide new" (KBIT_SLICE64=1: the 64-bit
# division back on in the same binary).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/slicerange ${SL_BUDGET:-420}
gpu_info
gpu_doctest format kbit_tests_gpu 30
if gpu_doctest kernels kbit_tests_kernels 90; then
  doctest_sanitize memcheck '*dense kernels equal*,*split-K equal*,*stream-K plan*,*pair table*' 150
fi
if [ -x .deps/gpu/kbit-verify ]; then
  timeout 100 "${V[@]}" --quick --kernels dense > "$W/verify.txt" 2>&1
  s "verify --quick dense rc=$? after $((SECONDS - T0)) s"; tail -12 "$W/verify.txt" | tee -a "$W/summary.txt"
fi
B="${SL_B:---M 1,2,4,8 --bits 4 --dtypes f16}"
arm_setup() {
  KERNELS=gemv,tcv,tcw,automatic_pdl
  [ "$1" = old ] && BIN=.deps/gpu/kbit-bench-old
  [ "$1" = wide ] && ENV=KBIT_SLICE64=1  # same binary, the 64-bit division switched back on
}
REPS=${SL_REPS:-3} MIN_LEFT=20 bench_rotation slicerange ${SL_ARMS:-old new}
