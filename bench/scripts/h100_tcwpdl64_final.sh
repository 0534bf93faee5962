#!/usr/bin/env bash
# Twenty-seventh session, closing call for tcw's 64-token tiles under PDL at every width (the default
# now: KBIT_TCW_PDL64_BITS=0x3C, tcw_kernel_smem's padding, k = 2's stream-K grids launched plainly by
# kTcwPdlStreamK). Arms from this tree: main and off (KBIT_TCW_PDL64=0, the old default). On main: every
# GPU doctest, memcheck and racecheck over the chain doctest (k = 3, 4, 5 at M = 64 under PDL), the
# occupancy doctest's list, kbit-verify --quick --pdl over every family and --quick over dense;
# kbit-bench in rotation, 2 reps, tcw_pdl and automatic_pdl over the dense shapes at M = 33, 48, 64,
# k = 2 (k = 3..5 were measured in -tcwpdl64land and -tcwpdl64k3 with the same kernels and launches).
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: TF_BUDGET (440 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcwpdl64final ${TF_BUDGET:-440}
device_build_knob_arms /tmp/tf off=-DKBIT_TCW_PDL64=0 || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 120
grep -E "padded under PDL" "$W/kernels.txt" | head -2 | tee -a "$W/summary.txt"
doctest_sanitize memcheck '*chain of linear*' 60
doctest_sanitize racecheck '*chain of linear*' 60
verify_run verify-pdl 120 6 "verify --quick --pdl (all)" --quick --pdl
verify_run verify 90 3 "verify --quick dense" --quick --kernels dense
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw_pdl,automatic_pdl
  case $1 in off) BIN=.deps/gpu/kbit-bench-off ;; esac
  B="--M 33,48,64 --bits 2 --dtypes f16"
}
BUDGET=$((BUDGET - 5)) MIN_LEFT=15 REPS=2 bench_rotation tcwpdl64final off main
