#!/usr/bin/env bash
# For the next session's first device call: the checks the twenty-seventh session's closing mends
# (ceb71e3) did not get on a GPU, and whether they moved the plain launches.
# - Every GPU doctest; it includes the PDL doctest at k = 3, which runs tcw's 64-token stream-K plan
#   under PDL, and the occupancy doctest with its resident <= plan check.
# - memcheck and racecheck over the PDL doctests.
# - kbit-verify --quick --pdl over dense.
# - cuobjdump's resource usage of the 64-token tcw kernels at k = 2, 3.
# - kbit-bench in rotation, 2 reps: automatic (plain launches) and automatic_pdl over the dense shapes
#   at M = 33, 48, 64, k = 2, 3, f16. The arms are main and off (KBIT_TCW_PDL64=0). tcw_kernel's shared
#   memory cap is now raised to the padded size on plain launches too (tcw_kernel_cap). The plain rows
#   of the two arms should match: the cap is not the launch's size.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: S28_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/s28first ${S28_BUDGET:-560}
device_build_knob_arms /tmp/s28 off=-DKBIT_TCW_PDL64=0 || exit 1
gpu_info
# The registers of the 64-token tcw kernels as this machine's build gives them (the plan counted one
# CTA per SM for k = 2's stream-K kernel although a local ptxas gives it 127 registers).
{ cuobjdump --dump-resource-usage /tmp/s28-main/kernels/libkbit_gpu.a 2>&1 | grep -A1 -E "tcw_(streamk_)?kernel.*Li[23]ELi64E" ; } \
  > "$W/tcw-resources.txt"; s "tcw 64-token k = 2, 3 resources: $(wc -l < "$W/tcw-resources.txt") lines in tcw-resources.txt"
gpu_doctest kernels kbit_tests_kernels 150
grep -E "padded under PDL" "$W/kernels.txt" | head -2 | tee -a "$W/summary.txt"
doctest_sanitize memcheck '*LinearArgs::pdl*,*chain of linear*' 150
doctest_sanitize racecheck '*chain of linear*,*holds no more*' 90
verify_run verify-pdl 90 3 "verify --quick --pdl dense" --quick --pdl --kernels dense
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=automatic,automatic_pdl
  case $1 in off) BIN=.deps/gpu/kbit-bench-off ;; esac
  B="--M 33,48,64 --bits 2,3 --dtypes f16"
}
BUDGET=$((BUDGET - 5)) MIN_LEFT=20 REPS=2 bench_rotation s28first off main
