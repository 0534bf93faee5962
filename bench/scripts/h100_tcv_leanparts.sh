#!/usr/bin/env bash
# Ran in the twenty-fourth session, recorded as bench/results/2026-11-27-h100-leanparts (prepared in the twenty-third): why the lean step loop loses at grouped k = 4
# (bench/results/2026-11-27-h100-tcvlean: 0.87-0.95x, and 0.90-0.97x with its register prefetch kept
# mid-loop). Its two parts as separate arms, each a patch on this tree's kernels/tcv.cu that changes
# only the grouped k = 4 pair-table kernels (sass_compare: the other 120 tcv kernels are main's):
# - act (bench/scripts/arms/lean_act.patch): activations loaded unpredicated by every lane (tokens >= M
#   read token 0, blocks past K read a zero block); 264 instructions per step (main 267), the last
#   weight prefetch 131 before the loop's end (main 128);
# - bounds (bench/scripts/arms/lean_bounds.patch): 32-bit step bounds against per-lane limits, and the
#   register prefetch after the second mma; 237 instructions per step, prefetch 121 before the end.
# If bounds loses too, the cause is neither the activation loads nor the prefetch's place.
# One call: main (this tree: kbit-bench, kbit-verify, kbit_tests_kernels) and the two arms
# (kbit-bench, kbit-verify) built side by side; kbit-verify --quick over grouped_tcv for each arm;
# kbit-bench main / act / bounds in rotation (grouped_tcv, automatic_pdl) over the MoE projections of
# Qwen3-Coder-Next and GLM-4.7-Flash at M = 1, 2, 4, 8, 16, k = 4, 2 reps.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: LP_BUDGET (585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/leanparts ${LP_BUDGET:-585}
device_sys || exit 1
arm_src() {  # arm_src ARM: this tree's sources with bench/scripts/arms/lean_ARM.patch applied, in /tmp/lp-ARM/src
  local d=/tmp/lp-$1/src p=$R/bench/scripts/arms/lean_$1.patch
  rm -rf "$d"; mkdir -p "$d"
  tar cf - --exclude=./.deps --exclude=./bench/results --exclude=./.git --exclude=./build --exclude=./build-fuzz . | tar xf - -C "$d"
  (cd "$d" && { patch -p1 -s < "$p" || git apply "$p"; })
}
for a in act bounds; do arm_src $a || { s "patch $a: failed (no patch or git on this machine?)"; exit 1; }; done
pids=()
for a in act bounds; do
  device_build /tmp/lp-$a/src /tmp/lp-$a/build 5 kbit-bench kbit-verify & pids+=($!)
done
device_build . /tmp/lp-main 6 kbit-bench kbit-verify kbit_tests_kernels; rc=$?
for p in "${pids[@]}"; do wait $p || rc=1; done
s "builds rc=$rc after $((SECONDS - T0)) s"
[ $rc = 0 ] || { tail -n 20 /tmp/lp-main.log /tmp/lp-act/build.log /tmp/lp-bounds/build.log | tee -a "$W/summary.txt"; exit 1; }
device_install /tmp/lp-main
for a in act bounds; do
  cp /tmp/lp-$a/build/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-$a
  cp /tmp/lp-$a/build/apps/kbit-verify/kbit-verify .deps/gpu/kbit-verify-$a
done
gpu_info
doctest_filter '*grouped_tcv*,*MoE kernels*' 60 'grouped_tcv, MoE kernels'
for a in act bounds; do
  V=(.deps/gpu/kbit-verify-$a --shapes "$R/data/shapes.json")
  verify_run verify-$a 40 2 "verify --quick grouped_tcv ($a)" --quick --kernels grouped_tcv
done
moe_catalogue "$W/cat"
arm_setup() {
  KERNELS=grouped_tcv,automatic_pdl
  case $1 in act | bounds) BIN=.deps/gpu/kbit-bench-$1 ;; esac
  B="--M 1,2,4,8,16 --bits 4 --dtypes f16 --models qwen3-coder-next glm-4.7-flash"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=15 REPS=2 bench_rotation leanparts main act bounds
