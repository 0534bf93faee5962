#!/usr/bin/env bash
# Twenty-seventh session: tcw's 64-token tiles under LinearArgs::pdl at k = 4 by default
# (KBIT_TCW_PDL64=2, KBIT_TCW_PDL64_BITS=0x10, kernels/tcw_common.cuh), and the other widths measured.
# Arms built side by side from this tree: main (the new default, k = 4), off (KBIT_TCW_PDL64=0: the
# old default), k3 (k = 3, 4) and k5 (k = 4, 5). The PDL doctests and the dequantize K-bound doctest
# on main; kbit-verify --quick --pdl over dense tcw and automatic on main, k3 and k5; kbit-bench in
# rotation, 2 reps, tcw_pdl and automatic_pdl over the dense shapes of the catalogue at M = 33, 48, 64
# (off: k = 3, 4, 5; main: k = 4; k3: k = 3; k5: k = 5); then compute-sanitizer memcheck and racecheck
# over the chain doctest (tcw's 64-token tiles under PDL at k = 4, M = 64) on main.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: TL_BUDGET (580 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcwpdl64land ${TL_BUDGET:-580}
device_build_knob_arms /tmp/tl off=-DKBIT_TCW_PDL64=0 k3=-DKBIT_TCW_PDL64_BITS=0x18 k5=-DKBIT_TCW_PDL64_BITS=0x30 || exit 1
gpu_info
doctest_filter '*dequantize refuses*,*LinearArgs::pdl*' 150 'dequantize K bound, pdl'
verify_run verify-pdl 60 3 "verify --quick --pdl dense.tcw,dense.automatic (main)" --quick --pdl --kernels dense.tcw,dense.automatic
for a in k3 k5; do
  V=(.deps/gpu/kbit-verify-$a --shapes "$R/data/shapes.json")
  verify_run "verify-pdl-$a" 60 3 "verify --quick --pdl dense.tcw,dense.automatic ($a)" --quick --pdl --kernels dense.tcw,dense.automatic
done
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw_pdl,automatic_pdl
  case $1 in main) ;; *) BIN=.deps/gpu/kbit-bench-$1 ;; esac
  case $1 in off) b=3,4,5 ;; main) b=4 ;; k3) b=3 ;; k5) b=5 ;; esac
  B="--M 33,48,64 --bits $b --dtypes f16"
}
BUDGET=$((BUDGET - 170)) MIN_LEFT=15 REPS=2 bench_rotation tcwpdl64land off main k3 k5
doctest_sanitize memcheck '*chain of linear*' 80
doctest_sanitize racecheck '*chain of linear*' 80
