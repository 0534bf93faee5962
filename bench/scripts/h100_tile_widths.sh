#!/usr/bin/env bash
# Prepared in the thirty-fifth session on branch exp/tcw-widths, not yet run: tcw's 160- and 224-token tiles
# beside main's 192 (KBIT_TCW_TILE160, KBIT_TCW_TILE224; tcw_choose_tile's `mid` bits, each step priced linearly
# between the fitted 128- and 256-token costs). By the Python copy of the choice (tcw_tile_fit.choose with
# mid=(160, 192) / (192, 224)) 160 tokens take M = 129..160 and 257..320 (two tiles of 160 against two of 192),
# 224 takes M = 193..224 and 385..448. -tile192's measure of 192 against 256 (1.10x on the moved rows, 0.97-1.20x)
# predicts ~1.04-1.08x for 160 against 192 at M = 257..320 and ~1.05-1.1x for 224 against 256 at M = 385..448.
# Builds side by side: main (kbit-bench, kbit_tests_kernels: every kernel GPU doctest first), w160 (-DKBIT_TCW_TILE160=1) and w224 (-DKBIT_TCW_TILE224=1), the arms
# with kbit-verify and kbit_tests_kernels. Per arm: the forced-tile doctest ("*token tile*": every plan form at its
# tile, bit for bit) and kbit-verify --full --pdl over dense.tcw at M = 160, 224, 288, 416 (--m). Then kbit-bench
# tcw_pdl, main / w160 / w224 in rotation (REPS, default 1), the dense shapes but Llama-3-70B's, M = 160, 224, 288,
# 320, 416, 448, k = 2, 4 (BITS). Pack first; carry .deps/sys.txz. Env: TW_BUDGET (560 s), REPS, BITS.
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/tilewidths" ${TW_BUDGET:-560}
device_sys || exit 1
pids=()
for a in w160=-DKBIT_TCW_TILE160=1 w224=-DKBIT_TCW_TILE224=1; do
  CUDA_FLAGS="${a#*=}" device_build . "/tmp/tw-${a%%=*}" 6 kbit-bench kbit-verify kbit_tests_kernels & pids+=($!)
done
device_build . /tmp/tw-main 4 kbit-bench kbit_tests_kernels; rc=$?
for p in "${pids[@]}"; do wait "$p" || rc=1; done
s "builds rc=$rc after $((SECONDS - T0)) s"
[ $rc = 0 ] || { tail -n 20 /tmp/tw-*.log | tee -a "$W/summary.txt"; exit 1; }
mkdir -p .deps/gpu
cp /tmp/tw-main/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-main
cp /tmp/tw-main/tests/kbit_tests_kernels .deps/gpu/kbit_tests_kernels
for a in w160 w224; do
  cp /tmp/tw-$a/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-$a
  cp /tmp/tw-$a/apps/kbit-verify/kbit-verify .deps/gpu/kbit-verify-$a
  cp /tmp/tw-$a/tests/kbit_tests_kernels .deps/gpu/kbit_tests_kernels-$a
done
gpu_info
gpu_doctest kernels kbit_tests_kernels 90  # main's (this branch's default build): every kernel GPU doctest
for a in w160 w224; do
  (cd .deps/gpu && timeout 90 ./kbit_tests_kernels-$a -tc='*token tile*' > "$W/kernels-$a.txt" 2>&1)
  s "$a doctests *token tile* rc=$? after $((SECONDS - T0)) s"; grep -E "assertions|Status|ERROR" "$W/kernels-$a.txt" | head -6 | tee -a "$W/summary.txt"
  V=(.deps/gpu/kbit-verify-$a --shapes "$R/data/shapes.json")
  verify_run "verify-$a" 90 3 "$a verify --full --pdl dense.tcw M = 160, 224, 288, 416" --full --pdl \
    --kernels dense.tcw --m 160,224,288,416
done
rows_catalogue skip=llama-3-70b
arm_setup() {
  KERNELS=tcw_pdl
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 160,224,288,320,416,448 --bits ${BITS:-2,4} --dtypes f16"
}
MIN_LEFT=20 REPS=${REPS:-1} bench_rotation tilewidths main w160 w224
rm -rf /tmp/tw-*/lib /tmp/tw-*/kernels 2>/dev/null; true
