#!/usr/bin/env bash
# After the grouped k = 3 L2 hints landed (4560028; measured at M <= 8 in
# bench/results/2026-11-27-h100-tcvlean/second): their two-n8-tile kernels (M = 9..16 rows per
# expert) at M = 16, and a third arm with the hints in every grouped kernel of two n8 tiles
# (-DKBIT_TCV_L2PF_NT2=1, an experiment knob applied uncommitted:
# bench/results/2026-11-27-h100-tcvnt2/nt2-knob.patch; with it undefined the tree is main). Arms: old (b01606b, main before the hints,
# .deps/old-src.txz), new (this tree = main), nt2. Also racecheck over the grouped_tcv doctests alone
# (the closing check's racecheck, bench/results/2026-11-27-h100-checks23, ran out of time in them).
# kbit-bench over the MoE projections of Qwen3-Coder-Next and GLM-4.7-Flash at M = 8, 12, 16,
# k = 2..5 (automatic_pdl, grouped_tcv), in rotation, 2 reps.
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvnt2 ${NT2_BUDGET:-585}
device_sys
CUDA_FLAGS=-DKBIT_TCV_L2PF_NT2=1 device_build . /tmp/nt2arm 6 kbit-bench & nt2_pid=$!
device_build_ab /tmp/nt2old /tmp/nt2new kbit-bench kbit-verify kbit_tests_kernels || exit 1
wait $nt2_pid; s "nt2 build rc=$? after $((SECONDS - T0)) s"
cp /tmp/nt2arm/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-nt2
gpu_info
doctest_sanitize racecheck '*grouped_tcv*' 200
moe_catalogue "$W/cat"
arm_setup() {
  KERNELS=automatic_pdl,grouped_tcv
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; nt2) BIN=.deps/gpu/kbit-bench-nt2 ;; esac
  B="--M 8,12,16 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation tcvnt2 old new nt2
