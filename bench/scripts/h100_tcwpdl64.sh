#!/usr/bin/env bash
# Twenty-sixth session: tcw's 64-token tiles under LinearArgs::pdl (KBIT_TCW_PDL64, kernels/tcw_common.cuh).
# In 2026-11-25-h100-pdl4 PDL on the 64-token tiles lost up to 0.66x on the larger shapes (their waiting
# CTAs beside a busy grid); the small shapes at M = 33..64 take ~8 us on tcw against ~5.5 at M = 32
# with PDL (bench/results/2026-11-27-h100-ldisp). Arms built side by side from this tree: main (knob 0),
# pdl64 (1: PDL where the main grid is at most one CTA per SM) and pdl64all (2: every grid).
# kbit-verify --quick --pdl over dense tcw and automatic per arm; kbit-bench in rotation, 2 reps:
# tcw_pdl and automatic_pdl over the dense shapes of all four catalogue models, M = 33, 48, 64, k = 2, 4.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: TP_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcwpdl64 ${TP_BUDGET:-560}
device_build_knob_arms /tmp/tp pdl64=-DKBIT_TCW_PDL64=1 pdl64all=-DKBIT_TCW_PDL64=2 || exit 1
gpu_info
for a in pdl64 pdl64all; do
  V=(.deps/gpu/kbit-verify-$a --shapes "$R/data/shapes.json")
  verify_run "verify-pdl-$a" 60 3 "verify --quick --pdl dense.tcw,dense.automatic ($a)" --quick --pdl --kernels dense.tcw,dense.automatic
done
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw_pdl,automatic_pdl
  case $1 in main) ;; *) BIN=.deps/gpu/kbit-bench-$1 ;; esac
  B="--M 33,48,64 --bits 2,4 --dtypes f16"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation tcwpdl64 main pdl64 pdl64all
