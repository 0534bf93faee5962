#!/usr/bin/env bash
# tcw_kernel's stages through bulk copies and per-stage mbarriers instead of a CTA barrier per step
# (KBIT_TCW_MBAR, kernels/tcw_common.cuh; branch exp/tcw-mbar, written in the twenty-seventh session
# and never run before this call). Arms from this tree: main (knob 0), mb128 (token tiles >= 128,
# M > 64) and mb32 (every tile). Per arm: kbit-verify --full over dense tcw at M = 64, 128, 256, 1024;
# on mb32 compute-sanitizer memcheck, racecheck and synccheck over kbit-verify's random and adversarial
# tcw shapes at M = 64 and 256 (a hang shows as the timeout); then kbit-bench in rotation, 2 reps, tcw
# and automatic over the dense shapes at M = 64, 256, 1024, k = 2, 4, f16.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: TM_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcwmbar ${TM_BUDGET:-560}
device_build_knob_arms /tmp/tm mb128=-DKBIT_TCW_MBAR=128 mb32=-DKBIT_TCW_MBAR=32 || exit 1
gpu_info
for a in mb128 mb32; do
  V=(.deps/gpu/kbit-verify-$a --shapes "$R/data/shapes.json")
  verify_run "verify-$a" 120 3 "verify --full dense.tcw M = 64..1024 ($a)" --full --kernels dense.tcw \
    --filter '/M(64|128|256|1024)/'
done
for tool in memcheck racecheck synccheck; do
  (timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 .deps/gpu/kbit-verify-mb32 --shapes "$R/data/shapes.json" \
    --full --no-cublas --kernels dense.tcw --filter '(random|adversarial).*/M(64|256)/' > "$W/$tool-mb32.txt" 2>&1)
  s "$tool verify mb32 rc=$? after $((SECONDS - T0)) s"; tail -2 "$W/$tool-mb32.txt" | tee -a "$W/summary.txt"
done
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw,automatic
  case $1 in main) ;; *) BIN=.deps/gpu/kbit-bench-$1 ;; esac
  B="--M 64,256,1024 --bits 2,4 --dtypes f16"
}
BUDGET=$((BUDGET - 5)) MIN_LEFT=20 REPS=2 bench_rotation tcwmbar main mb128 mb32
