#!/usr/bin/env bash
# tcw_kernel's stages through bulk copies and per-stage mbarriers instead of a CTA barrier per step
# (KBIT_TCW_MBAR, kernels/tcw_common.cuh; branch exp/tcw-mbar, written in the twenty-seventh session
# and never run before). tcw_streamk_kernel is not converted: stream-K plans run main's code in every
# arm. KBIT_TCW_STAGES256=3 gives the 256-token tiles (tcw and grouped_tcw) three stages instead of two.
# Two calls (each builds; W is under $OUT so a cut call still returns its logs):
#   TM_MODE=check: main and mb32 (every tile on the mbarriers) built side by side; on mb32
#     kbit-verify --full over dense tcw at M = 64..1024, --quick --pdl over dense tcw, then
#     compute-sanitizer memcheck, racecheck and synccheck over the random and adversarial tcw shapes
#     at M = 64 and 256 (--no-exact --no-rerun). A step that runs into its timeout (rc 124) may be a
#     hang: the plain verify's timeout is the hang check.
#   TM_MODE=bench: arms main, mb128 (token tiles >= 128), mb128s3 (and 3 stages at 256) and s3 (3
#     stages alone); kbit-bench in rotation, 2 reps, tcw and automatic over the dense shapes at
#     M = 256, 1024, k = 2, 4, f16.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: TM_BUDGET (540 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/tcwmbar-${TM_MODE:-check}" ${TM_BUDGET:-540}
trap 'cp "$W/summary.txt" "$OUT/" 2>/dev/null' EXIT
if [ "${TM_MODE:-check}" = check ]; then
  device_build_knob_arms /tmp/tm mb32=-DKBIT_TCW_MBAR=32 || exit 1
  gpu_info
  V=(.deps/gpu/kbit-verify-mb32 --shapes "$R/data/shapes.json")
  verify_run verify-mb32 120 3 "verify --full dense.tcw M = 64..1024 (mb32)" --full --kernels dense.tcw \
    --filter '/M(64|128|256|1024)/'
  verify_run verify-pdl-mb32 60 3 "verify --quick --pdl dense.tcw (mb32)" --quick --pdl --kernels dense.tcw
  for tool in memcheck racecheck synccheck; do
    [ "$(left)" -gt 40 ] || { s "$tool skipped: $(left) s left"; continue; }
    t=$(( $(left) / 2 < 90 ? $(left) / 2 : 90 ))
    (timeout $t compute-sanitizer --tool $tool --error-exitcode 9 .deps/gpu/kbit-verify-mb32 --shapes "$R/data/shapes.json" \
      --full --no-cublas --no-exact --no-rerun --kernels dense.tcw --filter '(random|adversarial).*/M(64|256)/' \
      > "$W/$tool-mb32.txt" 2>&1)
    s "$tool verify mb32 rc=$? (timeout $t s) after $((SECONDS - T0)) s"; tail -2 "$W/$tool-mb32.txt" | tee -a "$W/summary.txt"
  done
else
  device_build_knob_arms /tmp/tm mb128=-DKBIT_TCW_MBAR=128 "mb128s3=-DKBIT_TCW_MBAR=128 -DKBIT_TCW_STAGES256=3" \
    s3=-DKBIT_TCW_STAGES256=3 || exit 1
  gpu_info
  dense_catalogue "$W/dense"
  arm_setup() {
    KERNELS=tcw,automatic
    case $1 in main) ;; *) BIN=.deps/gpu/kbit-bench-$1 ;; esac
    B="--M 256,1024 --bits 2,4 --dtypes f16"
  }
  BUDGET=$((BUDGET - 5)) MIN_LEFT=20 REPS=2 bench_rotation tcwmbar main mb128 mb128s3 s3
fi
