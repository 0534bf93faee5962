#!/usr/bin/env bash
# Thirty-fourth session, second look at tcw's cluster slices (KBIT_TCW_CLUSTER). bench/results/2026-11-27-h100-cluster:
# 1.12-1.25x on plans of 2 slices and 256-token tiles (large partials), 0.84-0.87x on the tiny split-8 plans of 2
# steps per CTA, whose epilogue read the 8 slices' shared memory one round trip after another. Now every slice's
# load goes out first. Arms built side by side: main (knob off), cl8 (-DKBIT_TCW_CLUSTER=8) and cl2
# (-DKBIT_TCW_CLUSTER=2: clusters only for plans of 2 slices).
# On cl8: kbit-verify --quick --pdl over dense.tcw, --full --pdl at M = 65..512; memcheck, racecheck and synccheck
# over tcw's random and adversarial shapes at M = 64, 128, 256. Then kbit-bench tcw_pdl and automatic_pdl, the
# three arms in rotation, two reps, dense catalogue, M = 33, 64, 128, 256, 512, k = 2, 4.
# Predicted: cl2 keeps the split-2 gains with no loss; cl8 closer to main on the split-8 plans than before (0.95-1.0x).
# Pack first; carry .deps/sys.txz. Env: CL_BUDGET (575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/cluster2" ${CL_BUDGET:-575}
device_build_knob_arms /tmp/cm "cl8=-DKBIT_TCW_CLUSTER=8" "cl2=-DKBIT_TCW_CLUSTER=2" || exit 1
gpu_info
V=(.deps/gpu/kbit-verify-cl8 --shapes "$R/data/shapes.json")
verify_run verify-cl8-quick-pdl 60 3 "cl8 verify --quick --pdl dense.tcw" --quick --pdl --kernels dense.tcw
verify_run verify-cl8-full-pdl 90 3 "cl8 verify --full --pdl dense.tcw M = 65..512" --full --pdl --kernels dense.tcw \
  --filter '/M(65|128|256|512)/'
verify_sanitize cl8 300 90 '(random|adversarial).*/M(64|128|256)/' memcheck racecheck synccheck
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw_pdl,automatic_pdl
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 33,64,128,256,512 --bits 2,4 --dtypes f16"
}
MIN_LEFT=20 REPS=2 bench_rotation cluster2 main cl8 cl2
rm -rf /tmp/cm-*/lib /tmp/cm-*/kernels 2>/dev/null; true
