#!/usr/bin/env bash
# Thirty-second session, after k = 4's 64-token kernels at two CTAs per SM landed (2026-11-27-h100-minb64land):
# the same lever elsewhere in tcw, two knob arms beside main (kTcwMinBlocks, tcw_common.cuh):
# - m3 (-DKBIT_TCW_MINB64=0x08): k = 3's 64-token kernels bounded to two CTAs per SM. ptxas: tcw_kernel
#   128 -> 123 registers, stream-K 135 -> 128 with 48 bytes spilled. On main tcw_kernel already fits two, but
#   the plan counts the stream-K kernel's one (and pads PDL launches to it).
# - t3 (-DKBIT_TCW_MINB32=3): the 32-token kernels at three CTAs per SM (24 warps), 80 registers, spilling
#   24-268 bytes (k = 4 on the pair table 56 / 36).
# Predicted: m3 1.0-1.2x at M = 33..64, k = 3 (as k = 2, 4); t3 unknown (the spills against 24 warps).
# Each arm: kbit-verify --full over dense.tcw at M = 16, 32, 64. Then kbit-bench tcw and automatic_pdl over
# dense at M = 16, 32, 48, 64, 128, k = 2, 3, 4, f16, arms in rotation, 2 reps. Pack first; carry .deps/sys.txz.
# Env: OC_BUDGET (585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/occ2" ${OC_BUDGET:-585}
device_build_knob_arms /tmp/oc "m3=-DKBIT_TCW_MINB64=0x08" "t3=-DKBIT_TCW_MINB32=3" || exit 1
gpu_info
for arm in m3 t3; do
  V=(.deps/gpu/kbit-verify-$arm --shapes "$R/data/shapes.json")
  verify_run verify-$arm 50 3 "$arm verify --full dense.tcw M = 16, 32, 64" --full --kernels dense.tcw \
    --filter '/M(16|32|64)/'
done
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw,automatic_pdl
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 16,32,48,64,128 --bits 2,3,4 --dtypes f16"
}
MIN_LEFT=20 REPS=2 bench_rotation occ2 main m3 t3
rm -rf /tmp/oc-*/lib /tmp/oc-*/kernels 2>/dev/null; true
