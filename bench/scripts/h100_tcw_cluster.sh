#!/usr/bin/env bash
# Thirty-fourth session: tcw's K slices as thread-block clusters (KBIT_TCW_CLUSTER, tcw_common.cuh). Where a per-tile
# plan splits K 2..8 ways and the GPU holds every tile's cluster at once, the slices of a tile sum their
# accumulators through distributed shared memory, in slice order, instead of writing fp32 partials for
# tcw_reduce_kernel: one launch and the partials' traffic fewer. Arms built side by side: main (this tree, knob off)
# and cl (-DKBIT_TCW_CLUSTER=8).
# On cl: kbit-verify --quick over dense.tcw (plain and --pdl), --full --pdl at M = 65..512; memcheck, racecheck and
# synccheck over tcw's random and adversarial shapes at M = 64, 128, 256. Then kbit-bench tcw_pdl and automatic_pdl,
# main / cl in rotation, two reps, dense catalogue, M = 33, 64, 128, 256, 512, k = 2, 4.
# Predicted: the small shapes of split plans (Qwen3 q/k/o_proj, GLM q_a/kv_a/o, Llama k/v) 1.05-1.20x on tcw_pdl at
# M = 33..256; unsplit plans and stream-K 1.00x; a loss where clusters constrain placement (8-CTA clusters at one
# CTA per SM).
# Pack first; carry .deps/sys.txz. Env: CL_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/cluster" ${CL_BUDGET:-560}
device_build_knob_arms /tmp/cl "cl=-DKBIT_TCW_CLUSTER=8" || exit 1
gpu_info
V=(.deps/gpu/kbit-verify-cl --shapes "$R/data/shapes.json")
verify_run verify-cl-quick 60 3 "cl verify --quick dense.tcw" --quick --kernels dense.tcw
verify_run verify-cl-quick-pdl 60 3 "cl verify --quick --pdl dense.tcw" --quick --pdl --kernels dense.tcw
verify_run verify-cl-full-pdl 90 3 "cl verify --full --pdl dense.tcw M = 65..512" --full --pdl --kernels dense.tcw \
  --filter '/M(65|128|256|512)/'
verify_sanitize cl 250 90 '(random|adversarial).*/M(64|128|256)/' memcheck racecheck synccheck
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw_pdl,automatic_pdl
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 33,64,128,256,512 --bits 2,4 --dtypes f16"
}
MIN_LEFT=20 REPS=2 bench_rotation cluster main cl
rm -rf /tmp/cl-*/lib /tmp/cl-*/kernels 2>/dev/null; true
