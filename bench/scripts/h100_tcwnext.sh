#!/usr/bin/env bash
# exp/tcw-next screen (thirtieth session): KBIT_TCW_WAIT1 and KBIT_TCW_MCAST=128, alone and together,
# against main's default, in one call. Four builds side by side (lib/device_build.sh
# device_build_knob_arms): main, w1 (-DKBIT_TCW_WAIT1=1), mc (-DKBIT_TCW_MCAST=128) and wm (both).
# Checks on each knob arm: kbit-verify --full over dense.tcw at M = 128, 256, 1024 (fp32 reference,
# exact-mode launch, rerun; its timeout is the hang check); memcheck and racecheck over the random and
# adversarial tcw shapes at M = 256 for wm (it runs both changed loops). Then kbit-bench over the dense
# catalogue, tcw at M = 256 and 1024, k = 2 and 4, the four arms in rotation, 2 reps. The sanitizer
# sweep and ncu of the winner come in a second call.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: TN_BUDGET (585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/tcwnext" ${TN_BUDGET:-585}
device_build_knob_arms /tmp/tn w1=-DKBIT_TCW_WAIT1=1 mc=-DKBIT_TCW_MCAST=128 \
  "wm=-DKBIT_TCW_WAIT1=1 -DKBIT_TCW_MCAST=128" || exit 1
gpu_info
for arm in w1 mc wm; do
  V=(.deps/gpu/kbit-verify-$arm --shapes "$R/data/shapes.json")
  verify_run verify-full-$arm 60 3 "$arm verify --full dense.tcw M = 128, 256, 1024" --full \
    --kernels dense.tcw --filter '/M(128|256|1024)/'
done
V=(.deps/gpu/kbit-verify-wm --shapes "$R/data/shapes.json")
verify_sanitize wm 330 40 '(random|adversarial).*/M256/' memcheck racecheck
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 256,1024 --bits 2,4 --dtypes f16"
}
MIN_LEFT=20 REPS=2 bench_rotation tcwnext main w1 mc wm
rm -rf /tmp/tn-*/lib /tmp/tn-*/kernels 2>/dev/null; true
