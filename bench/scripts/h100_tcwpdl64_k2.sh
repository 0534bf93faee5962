#!/usr/bin/env bash
# Twenty-seventh session: the closing checks of tcw's 64-token tiles under PDL at k = 3, 4, 5 (the
# default now, KBIT_TCW_PDL64_BITS=0x38; k = 3 with tcw_kernel_smem's padding), and k = 2 again with the
# padding in place (-tcwpdl64 measured k = 2 without it: up to 0.65x). Arms from this tree: main
# (k = 3..5), k2 (k = 2..5) and off (KBIT_TCW_PDL64=0). On main: the occupancy, chain and PDL doctests,
# memcheck and racecheck over the chain doctest (k = 3, 4, 5 at M = 64 under PDL); kbit-verify --quick
# --pdl over dense tcw and automatic on main and k2; kbit-bench in rotation, 2 reps, tcw_pdl and
# automatic_pdl over the dense shapes at M = 33, 48, 64, k = 2 (off and k2).
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: TK_BUDGET (420 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcwpdl64k2 ${TK_BUDGET:-420}
device_build_knob_arms /tmp/tk off=-DKBIT_TCW_PDL64=0 k2=-DKBIT_TCW_PDL64_BITS=0x3C || exit 1
gpu_info
doctest_filter "*holds no more*,*chain of linear*,*LinearArgs::pdl*" 150 'occupancy, chain, pdl'
grep -E "padded under PDL" "$W/kernels.txt" | head -2 | tee -a "$W/summary.txt"
doctest_sanitize memcheck '*chain of linear*' 60
doctest_sanitize racecheck '*chain of linear*' 60
verify_run verify-pdl 60 3 "verify --quick --pdl dense.tcw,dense.automatic (main)" --quick --pdl --kernels dense.tcw,dense.automatic
V=(.deps/gpu/kbit-verify-k2 --shapes "$R/data/shapes.json")
verify_run verify-pdl-k2 60 3 "verify --quick --pdl dense.tcw,dense.automatic (k2)" --quick --pdl --kernels dense.tcw,dense.automatic
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw_pdl,automatic_pdl
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 33,48,64 --bits 2 --dtypes f16"
}
BUDGET=$((BUDGET - 5)) MIN_LEFT=15 REPS=2 bench_rotation tcwpdl64k2 off k2
