#!/usr/bin/env bash
# Twenty-seventh session: tcw's 64-token tiles under PDL at k = 5 (default now: KBIT_TCW_PDL64_BITS=0x30)
# and at k = 3 with tcw_kernel's shared memory padded under PDL to the plan's one CTA per SM
# (tcw_kernel_smem, kernels/tcw.cu). In -tcwpdl64land k = 3 lost up to 0.66x on the per-tile grids of
# one wave (Llama-3-70B q_proj M = 64 37.2 -> 51.2 us), where its 128-register tcw_kernel fits two CTAs
# per SM against the plan's one. Arms from this tree: main (k = 4, 5), off (KBIT_TCW_PDL64=0) and k3
# (k = 3, 4, 5). The occupancy, chain and PDL doctests on main; memcheck and racecheck over the chain
# doctest (k = 4, 5 at M = 64 under PDL); kbit-verify --quick --pdl over dense tcw and automatic on
# main and k3; kbit-bench in rotation, 2 reps, tcw_pdl and automatic_pdl over the dense shapes at
# M = 33, 48, 64 (off: k = 3, 5; main: k = 5; k3: k = 3).
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: TK_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcwpdl64k3 ${TK_BUDGET:-560}
device_build_knob_arms /tmp/tk off=-DKBIT_TCW_PDL64=0 k3=-DKBIT_TCW_PDL64_BITS=0x38 || exit 1
gpu_info
doctest_filter "*holds no more*,*chain of linear*,*LinearArgs::pdl*" 150 'occupancy, chain, pdl'
grep -E "padded under PDL" "$W/kernels.txt" | head -2 | tee -a "$W/summary.txt"
doctest_sanitize memcheck '*chain of linear*' 60
doctest_sanitize racecheck '*chain of linear*' 60
verify_run verify-pdl 60 3 "verify --quick --pdl dense.tcw,dense.automatic (main)" --quick --pdl --kernels dense.tcw,dense.automatic
V=(.deps/gpu/kbit-verify-k3 --shapes "$R/data/shapes.json")
verify_run verify-pdl-k3 60 3 "verify --quick --pdl dense.tcw,dense.automatic (k3)" --quick --pdl --kernels dense.tcw,dense.automatic
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw_pdl,automatic_pdl
  case $1 in main) ;; *) BIN=.deps/gpu/kbit-bench-$1 ;; esac
  case $1 in off) b=3,5 ;; main) b=5 ;; k3) b=3 ;; esac
  B="--M 33,48,64 --bits $b --dtypes f16"
}
BUDGET=$((BUDGET - 5)) MIN_LEFT=15 REPS=2 bench_rotation tcwpdl64k3 off main k3
