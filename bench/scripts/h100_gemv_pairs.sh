#!/usr/bin/env bash
# gemv's k = 4 pair table (float2 codebook pairs in shared memory, two weights per PRMT + LEA + 8-byte
# load) against the float codebook, one call: GPU doctests (kernels + format), compute-sanitizer
# memcheck and racecheck over the gemv doctests with every k = 4 gemv on the pair table
# (KBIT_GEMV_ARM=pt), kbit-verify --quick on gemv + automatic the same way, then kbit-bench gemv
# A/B in rotation (arms main = float codebook, pt = pair table, picked by KBIT_GEMV_ARM) over every
# catalogue shape at M = 1..4, k = 4, f16; with time left, ncu of both arms on Llama-3-70B gate_up
# M = 1 (shared-memory bank conflicts included). Env: PAIRS_B (sweep flags), PAIRS_REPS (default 3),
# PAIRS_KERNELS (default gemv), PAIRS_BUDGET (default 480 s), PAIRS_ARMS (default main pt pt3: pt3 is
# the pair table with two k-tiles in flight per warp at M = 1, 2 and 3 CTAs per SM),
# PAIRS_CHECK_ARM (the arm the doctests, sanitizers and verify run second, default pt3),
# PAIRS_NCU_ARMS, PAIRS_NCU_CASE (a kbit-verify case). KBIT_GEMV_ARM was a temporary switch in gemv_uses_pairs for these runs (pt: the pair
# table for every k = 4 gemv; pt3: also two k-tiles in flight at M = 1, 2); main has no such switch,
# so on main every arm runs the landed rule. Also run (2026-11-26) with the arm il: the K slices of
# a split interleaved by groups of 4 k-tiles (bench/results/2026-11-26-h100-gemvslices).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gemvpairs ${PAIRS_BUDGET:-480}
gpu_info
gpu_doctest format kbit_tests_gpu 30
if gpu_doctest kernels kbit_tests_kernels 90; then
  KBIT_GEMV_ARM=${PAIRS_CHECK_ARM:-pt3} gpu_doctest kernels-${PAIRS_CHECK_ARM:-pt3} kbit_tests_kernels 90
  for tool in memcheck racecheck; do
    f='*pair table*,*dense kernels equal*,*split-K equal*'
    [ $tool = racecheck ] && f='*pair table*'
    KBIT_GEMV_ARM=${PAIRS_CHECK_ARM:-pt3} doctest_sanitize $tool "$f" 150 "(KBIT_GEMV_ARM=${PAIRS_CHECK_ARM:-pt3})"
  done
fi
if [ -x .deps/gpu/kbit-verify ]; then
  KBIT_GEMV_ARM=${PAIRS_CHECK_ARM:-pt3} timeout 120 "${V[@]}" --quick --kernels gemv,automatic > "$W/verify.txt" 2>&1
  s "verify --quick gemv,automatic (KBIT_GEMV_ARM=${PAIRS_CHECK_ARM:-pt3}) rc=$? after $((SECONDS - T0)) s"; tail -8 "$W/verify.txt" | tee -a "$W/summary.txt"
fi
B="${PAIRS_B:---M 1,2,3,4 --bits 4 --dtypes f16}"
arm_setup() { KERNELS=${PAIRS_KERNELS:-gemv}; ENV=KBIT_GEMV_ARM=$1; }
REPS=${PAIRS_REPS:-3} MIN_LEFT=20 bench_rotation gemvpairs ${PAIRS_ARMS:-main pt pt3}
l=$(left)
if [ "$l" -gt 40 ] && [ -x .deps/gpu/kbit-verify ] && [ -z "${PAIRS_NO_NCU:-}" ]; then
  for arm in ${PAIRS_NCU_ARMS:-main pt pt3}; do
    mkdir -p "$W/ncu-$arm"
    KBIT_GEMV_ARM=$arm OUT=$W/ncu-$arm NCU_EXTRA_SECTIONS=MemoryWorkloadAnalysis_Tables timeout $(( $(left) / 2 )) \
      bash bench/scripts/h100_ncu_profile.sh "${PAIRS_NCU_CASE:-dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/gemv}" \
      > "$W/ncu-$arm.log" 2>&1
    s "ncu $arm rc=$? after $((SECONDS - T0)) s"
  done
fi
