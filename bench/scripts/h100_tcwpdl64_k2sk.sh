#!/usr/bin/env bash
# Twenty-seventh session: k = 2's 64-token stream-K plans launched wholly without PDL (pre-pass, main
# and fixup; in -tcwpdl64final only the pre-pass ran under PDL there and GLM shared_experts.gate_up
# M = 64 took 29.2 against 28.3 us). Arms from this tree: main and off (KBIT_TCW_PDL64=0). On main: the
# occupancy, chain and PDL doctests, memcheck over the chain doctest, kbit-verify --quick --pdl over
# dense tcw and automatic; kbit-bench in rotation, 2 reps, tcw_pdl and automatic_pdl over the dense
# shapes at M = 33, 48, 64, k = 2.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: TS_BUDGET (320 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcwpdl64k2sk ${TS_BUDGET:-320}
device_build_knob_arms /tmp/ts off=-DKBIT_TCW_PDL64=0 || exit 1
gpu_info
doctest_filter "*holds no more*,*chain of linear*,*LinearArgs::pdl*" 120 'occupancy, chain, pdl'
doctest_sanitize memcheck '*chain of linear*' 40
verify_run verify-pdl 60 3 "verify --quick --pdl dense.tcw,dense.automatic" --quick --pdl --kernels dense.tcw,dense.automatic
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw_pdl,automatic_pdl
  case $1 in off) BIN=.deps/gpu/kbit-bench-off ;; esac
  B="--M 33,48,64 --bits 2 --dtypes f16"
}
BUDGET=$((BUDGET - 5)) MIN_LEFT=15 REPS=2 bench_rotation tcwpdl64k2sk off main
