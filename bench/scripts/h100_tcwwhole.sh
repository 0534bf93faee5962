#!/usr/bin/env bash
# KBIT_TCW_WHOLE (branch exp/tcw-skpct, thirtieth session): where tcw's plan keeps whole tiles and they
# take more than one wave, from 128-token tiles, run them on the stream-K kernel as one wave of CTAs
# with equal runs of whole tiles (tcw_partition's `whole`, lib/kbit/tcw_sched.h): the per-tile
# makespan, no shared tile and no fixup, one pipeline over a CTA's tiles. Over the dense catalogue it
# moves 2 shapes at M = 512 and 10 at M = 1024 (Llama-3-70B gate_up: 128 CTAs of 14 tiles).
# Why: in h100_tcwskpct.sh's run, stream-K wherever its makespan was no longer (sk100) won 1.09-1.12x
# on Llama-3-70B gate_up at M = 1024 (3% shorter makespan) but lost up to 0.68x where most tiles were
# shared (fixups) or a CTA's range began mid-tile (down: K = 28672).
# Two builds side by side (main, wt = -DKBIT_TCW_WHOLE=1); on wt: kbit-verify --full over dense.tcw at
# M = 128, 256, 512, 1024; memcheck and racecheck over GLM q_b_proj and kv_b_proj at M = 512, 1024 (whole
# runs there); then kbit-bench main / wt in rotation, 2 reps: tcw over dense at M = 512, 1024, k = 2..5.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: TW_BUDGET (580 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/tcwwhole" ${TW_BUDGET:-580}
device_build_knob_arms /tmp/tw wt=-DKBIT_TCW_WHOLE=1 || exit 1
gpu_info
V=(.deps/gpu/kbit-verify-wt --shapes "$R/data/shapes.json")
verify_run verify-full 90 3 "wt verify --full dense.tcw M = 128, 256, 512, 1024" --full \
  --kernels dense.tcw --filter '/M(128|256|512|1024)/'
verify_sanitize wt 380 60 'glm-4.7-flash.attn.(q_b_proj|kv_b_proj)/.*/M(512|1024)/' memcheck racecheck
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 512,1024 --bits 2,3,4,5 --dtypes f16"
}
MIN_LEFT=20 REPS=2 bench_rotation tcwwhole main wt
