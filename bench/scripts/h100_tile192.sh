#!/usr/bin/env bash
# Thirty-fifth session, second call: tcw's 192-token tile (KBIT_TCW_TILE192=1: tcw_kernel and the stream-K kernel
# at MN = 192, tcw_choose_tile's `mid` candidate at c = halfway between the 128- and 256-token step costs).
# Where 192 tokens need no more token tiles than 256 (M = 129..192, 257..384, 513..576) a step multiplies up to
# 25% fewer padding tokens. Predicted (the step-cost fit 0.90 / 1.10 / 1.55 us at 64 / 128 / 256 tokens, linear
# in the tile: ~1.33 us at 192): the moved rows 1.05-1.2x, most at M = 160, 288, 320, 384. Builds side by side:
# main (kbit-bench) and t192 (kbit-bench, kbit-verify, kbit_tests_kernels). On t192: every kernel GPU doctest;
# kbit-verify --full --pdl over dense.tcw and dense.automatic, and --full over dense.tcw, at M = 160, 192, 288,
# 320, 384, 576 (--m); then kbit-bench tcw_pdl, main / t192 in rotation, two reps, over the dense shapes but
# Llama-3-70B's at those M, k = 2..5; then memcheck and racecheck over the random and adversarial shapes at
# M = 160, 288 with what time is left. Pack first; carry .deps/sys.txz. Env: TB_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/tile192" ${TB_BUDGET:-560}
device_sys || exit 1
CUDA_FLAGS=-DKBIT_TCW_TILE192=1 device_build . /tmp/tb-t192 10 kbit-bench kbit-verify kbit_tests_kernels & pid=$!
device_build . /tmp/tb-main 6 kbit-bench; rc=$?
wait $pid || rc=1
s "builds rc=$rc after $((SECONDS - T0)) s"
[ $rc = 0 ] || { tail -n 20 /tmp/tb-main.log /tmp/tb-t192.log | tee -a "$W/summary.txt"; exit 1; }
device_install /tmp/tb-t192
cp /tmp/tb-main/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-main
cp /tmp/tb-t192/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-t192
gpu_info
gpu_doctest kernels kbit_tests_kernels 90
MS=160,192,288,320,384,576
verify_run verify-pdl 120 3 "t192 verify --full --pdl dense.tcw,dense.automatic M = $MS" --full --pdl \
  --kernels dense.tcw,dense.automatic --m $MS
verify_run verify-plain 90 3 "t192 verify --full dense.tcw M = $MS" --full --kernels dense.tcw --m $MS
rows_catalogue skip=llama-3-70b
arm_setup() {
  KERNELS=tcw_pdl
  BIN=.deps/gpu/kbit-bench-$1
  B="--M $MS --bits 2,3,4,5 --dtypes f16"
}
BUDGET_BENCH_END=$((BUDGET - 90))
BUDGET0=$BUDGET; BUDGET=$BUDGET_BENCH_END
MIN_LEFT=20 REPS=2 bench_rotation tile192 main t192
BUDGET=$BUDGET0
for tool in memcheck racecheck; do
  [ "$(left)" -gt 35 ] || { s "$tool skipped: $(left) s left"; continue; }
  timeout $(( $(left) / 2 )) compute-sanitizer --tool $tool --error-exitcode 9 "${V[@]}" --full --no-cublas --no-exact \
    --no-rerun --kernels dense.tcw --m 160,288 --filter '(random|adversarial)' > "$W/$tool.txt" 2>&1
  s "$tool t192 M = 160, 288 rc=$? after $((SECONDS - T0)) s"; tail -2 "$W/$tool.txt" | tee -a "$W/summary.txt"
done
rm -rf /tmp/tb-*/lib /tmp/tb-*/kernels 2>/dev/null; true
