#!/usr/bin/env bash
# Thirty-first session: KBIT_TCW_MCAST (branch exp/tcw-mcast: tcw_kernel's mbarrier tiles as two-CTA clusters
# multicasting each activation stage) at the 128-token tiles, M = 96 and 128. The thirtieth session screened it
# at M = 256 and 1024 only (lost, 0.93-0.94x). At 128 tokens a step costs ~1.1 us against 0.56 us of tensor
# work and ncu puts 14% of the stall samples on the activation copy's wait (bench/results/2026-11-27-h100-stepsncu).
# The branch's sources (packed as .deps/old-src.txz with OLD=exp/tcw-mcast) built twice side by side, knob off
# and -DKBIT_TCW_MCAST=128; kbit-verify --full over dense.tcw at M = 65, 128 on the knob build; kbit-bench tcw
# over dense at M = 96, 128, k = 2, 4, off / on in rotation, 2 reps. Carry .deps/sys.txz, .deps/old-src.txz.
# Env: MB_BUDGET (480 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/mcast128" ${MB_BUDGET:-480}
device_sys || exit 1
mkdir -p /tmp/mb/src && tar xJf .deps/old-src.txz -C /tmp/mb/src
device_build /tmp/mb/src /tmp/mb/off 8 kbit-bench & p=$!
CUDA_FLAGS=-DKBIT_TCW_MCAST=128 device_build /tmp/mb/src /tmp/mb/on 8 kbit-bench kbit-verify; rc=$?
wait $p || rc=1
s "builds (off, on) rc=$rc after $((SECONDS - T0)) s"
[ $rc = 0 ] || { tail -n 20 /tmp/mb/off.log /tmp/mb/on.log | tee -a "$W/summary.txt"; exit 1; }
mkdir -p .deps/gpu
cp /tmp/mb/off/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-off
cp /tmp/mb/on/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-on
gpu_info
V=(/tmp/mb/on/apps/kbit-verify/kbit-verify --shapes "$R/data/shapes.json")
verify_run verify-on 60 3 "on: verify --full dense.tcw M = 65, 128" --full --kernels dense.tcw --filter '/M(65|128)/'
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 96,128 --bits 2,4 --dtypes f16"
}
MIN_LEFT=20 REPS=2 bench_rotation mcast128 off on
