#!/usr/bin/env bash
# Twenty-ninth session: KBIT_TCW_MBAR_SK=128 as the default (the stream-K kernel on bulk copies and
# mbarriers from 128-token tiles up; measured from 64 up in bench/results/2026-11-27-h100-tcwmbarsk, where
# the 64-token tiles lost at k = 2 by occupancy). One call: old (main before, .deps/old-src.txz) and new
# built side by side; on new, the GPU doctests that force the stream-K plan (exact mode, on 4 CTAs, PDL,
# the chain) and the occupancy one; memcheck, racecheck and synccheck over the stream-K doctests;
# kbit-verify --quick --pdl over dense.tcw and --full over dense.tcw at M = 128, 256. Then kbit-bench old /
# new in rotation, 2 reps: tcw and tcw_pdl over dense at M = 128, 256, k = 2..5. Last, with the budget
# left, the prefill dispatch audit on new: tcw_pdl, dequant_cublas and automatic_pdl over dense at
# M = 128..1024, k = 2, 4, 5 (choose_kernel's M > 64 bounds; as h100_large_dispatch.sh).
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz and
# .deps/old-src.txz. Env: SL_BUDGET (575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/sk128land" ${SL_BUDGET:-575}
device_build_ab /tmp/skl-old /tmp/skl-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter "*stream-K*,*LinearArgs::pdl*,*chain of linear*,*holds no more*" 120 "stream-K, PDL, chain, occupancy"
for tool in memcheck racecheck synccheck; do
  [ "$(left)" -gt 330 ] || { s "$tool skipped: $(left) s left"; continue; }
  doctest_sanitize $tool "*stream-K*" 60
done
verify_run verify-pdl 60 3 "verify --quick --pdl dense.tcw" --quick --pdl --kernels dense.tcw
verify_run verify-full 60 3 "verify --full dense.tcw M = 128, 256" --full --kernels dense.tcw --filter '/M(128|256)/'
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw,tcw_pdl
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 128,256 --bits 2,3,4,5 --dtypes f16"
}
BUDGET=$((BUDGET - 110)) MIN_LEFT=20 REPS=2 bench_rotation sk128 old new
mkdir -p "$W/ldisp"
timeout -s INT $(( $(left) - 3 )) .deps/gpu/kbit-bench --shapes "$SHAPES" --git-commit "ldisp-sk128" \
  --M 128 256 512 1024 --bits 2 4 5 --dtypes f16 --kernels tcw_pdl,dequant_cublas,automatic_pdl \
  --json "$W/ldisp/bench.json" --markdown "$W/ldisp/bench.md" > "$W/ldisp/bench.txt" 2>&1
s "ldisp bench rc=$? after $((SECONDS - T0)) s"; grep -E "dispatch audit" "$W/ldisp/bench.txt" | tee -a "$W/summary.txt"
