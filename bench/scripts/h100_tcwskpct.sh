#!/usr/bin/env bash
# KBIT_TCW_SK_PCT (branch exp/tcw-skpct, thirtieth session): tcw's plan takes stream-K where its
# makespan is <= PCT% of the per-tile one (86 on main, measured with the cp.async stream-K kernel,
# before that kernel ran on bulk copies and mbarriers from 128-token tiles). Arm sk100 takes stream-K
# wherever it is no longer than per tile: over the dense catalogue that moves 4 shapes at M = 128 and
# 256, 5 at 512 and 12 at 1024, all within 0.97-1.00 of the per-tile makespan. The kernels are main's;
# only the plan changes. Two builds side by side (main, sk100 = -DKBIT_TCW_SK_PCT=100); on sk100:
# kbit-verify --full over dense.tcw at M = 128, 256, 512, 1024, memcheck and racecheck over GLM
# shared_experts.down at M = 1024 (stream-K there only on sk100); then kbit-bench main / sk100 in
# rotation, 2 reps: tcw over dense at M = 128, 256, 512, 1024, k = 2 and 4.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: TS_BUDGET (580 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/tcwskpct" ${TS_BUDGET:-580}
device_build_knob_arms /tmp/ts sk100=-DKBIT_TCW_SK_PCT=100 || exit 1
gpu_info
V=(.deps/gpu/kbit-verify-sk100 --shapes "$R/data/shapes.json")
verify_run verify-full 90 3 "sk100 verify --full dense.tcw M = 128, 256, 512, 1024" --full \
  --kernels dense.tcw --filter '/M(128|256|512|1024)/'
verify_sanitize sk100 380 45 'glm-4.7-flash.mlp.shared_experts.down/.*/M1024/' memcheck racecheck
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 128,256,512,1024 --bits 2,4 --dtypes f16"
}
MIN_LEFT=20 REPS=2 bench_rotation tcwskpct main sk100
