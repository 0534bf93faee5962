#!/usr/bin/env bash
# Thirty-second session: the least steps of a tcw K slice (KBIT_TCW_MIN_SLICE, host knob on branch
# exp/tcw-minslice; 2 on main). ncu (bench/results/2026-11-27-h100-smallncu) put half of tcw's main kernel on
# the small prefill shapes in a CTA's fixed cost (4 steps in 9.6 us against ~1.25 us a step in long runs), and
# the slice sum is a launch of its own. Fewer, longer slices pay the fixed cost fewer times and write fewer
# partials, but use fewer SMs. Predicted: gains on the short-K shapes at M = 96..256 (Qwen3 q_proj, K = 2048),
# losses where the split filled the GPU on long K. One build; arms by environment: main (2), s4, s8. kbit-verify
# --full over dense.tcw at M = 128, 256 under s8; kbit-bench tcw over dense at M = 64, 128, 192, 256, k = 2, 4,
# arms in rotation, one rep. Pack first; carry .deps/sys.txz. Env: MS_BUDGET (300 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/minslice" ${MS_BUDGET:-300}
device_build_new /tmp/ms kbit-bench kbit-verify || exit 1
gpu_info
V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
VENV=KBIT_TCW_MIN_SLICE=8 verify_run verify-s8 40 3 "s8 verify --full dense.tcw M = 128, 256" --full \
  --kernels dense.tcw --filter '/M(128|256)/'
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw
  case $1 in main) ENV=KBIT_TCW_MIN_SLICE=2 ;; s4) ENV=KBIT_TCW_MIN_SLICE=4 ;; s8) ENV=KBIT_TCW_MIN_SLICE=8 ;; esac
  B="--M 64,128,192,256 --bits 2,4 --dtypes f16"
}
MIN_LEFT=15 REPS=1 bench_rotation minslice main s4 s8
rm -rf /tmp/ms/kernels /tmp/ms/lib 2>/dev/null; true
