#!/usr/bin/env bash
# Second call of the exp/tcw-next screen, on the warm machine whose /tmp/tn-* builds h100_tcwnext.sh
# left (its rotation missed main: device_build_knob_arms then installed main as .deps/gpu/kbit-bench
# only; it now also installs kbit-bench-main). kbit-bench main / w1 in rotation, 2 reps, the same sweep (dense, tcw, M = 256 and
# 1024, k = 2 and 4); compute-sanitizer memcheck, racecheck and synccheck over w1's random and
# adversarial tcw shapes at M = 256 and 1024; then ncu (h100_pipe_util.sh) on Llama-3-70B gate_up
# M = 1024 k = 4 tcw for main and w1. Env: TN_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
device_run_init "$OUT/tcwnext2" ${TN_BUDGET:-560}
[ -x /tmp/tn-main/apps/kbit-bench/kbit-bench ] || { s "no /tmp/tn-main build: run h100_tcwnext.sh"; exit 1; }
mkdir -p .deps/gpu
for a in main w1; do
  cp /tmp/tn-$a/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-$a
  cp /tmp/tn-$a/apps/kbit-verify/kbit-verify .deps/gpu/kbit-verify-$a
done
gpu_info
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 256,1024 --bits 2,4 --dtypes f16"
}
BUDGET=$((BUDGET - 300)) MIN_LEFT=20 REPS=2 bench_rotation tcwnext main w1
SHAPES=$R/data/shapes.json
V=(.deps/gpu/kbit-verify-w1 --shapes "$R/data/shapes.json")
verify_sanitize w1 150 50 '(random|adversarial).*/M(256|1024)/' memcheck racecheck synccheck
for arm in main w1; do
  [ "$(left)" -gt 20 ] || break
  mkdir -p "$W/ncu-$arm"
  VERIFY=.deps/gpu/kbit-verify-$arm OUT="$W/ncu-$arm" \
    CASES=dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1024/k4/f16/tcw \
    timeout $(( $(left) / 2 )) bash bench/scripts/h100_pipe_util.sh > "$W/ncu-$arm.log" 2>&1
  s "ncu $arm rc=$? after $((SECONDS - T0)) s"
done
