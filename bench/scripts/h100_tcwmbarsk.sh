#!/usr/bin/env bash
# tcw's stream-K kernel on bulk copies and per-stage mbarriers over each CTA's whole range
# (KBIT_TCW_MBAR_SK, kernels/tcw_common.cuh; branch exp/tcw-mbar-sk, written in the twenty-eighth
# session and never run). The default build is byte-identical to main's (tcw.cu's cubin).
# Arms built side by side: main (kbit-bench) and sk64 (-DKBIT_TCW_MBAR_SK=64: the 64-token tiles and
# up; kbit-bench, kbit-verify, kbit_tests_kernels). On sk64, each step gated on the budget: the GPU
# doctests that force the stream-K plan (exact mode, on 4 CTAs for long ranges, PDL, the chain) and the
# occupancy doctest; memcheck, racecheck and synccheck over the forced stream-K doctests (the 4-CTA one
# reaches the empty-barrier waits and reused stages); kbit-verify --quick --pdl over dense.tcw and
# --full over dense.tcw at M = 64, 128, 256 (its timeout is the hang check). Then kbit-bench in rotation,
# 2 reps: tcw and tcw_pdl over dense at M = 64, 128, 256, k = 2, 4 (main, sk64). The stream-K plans
# are the widest shapes (Llama-3-70B and -8B gate_up, GLM shared_experts.gate_up; tcw_plan_rows.py).
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: SK_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/tcwmbarsk" ${SK_BUDGET:-560}
device_sys || exit 1
device_build . /tmp/sk-main 6 kbit-bench & main_pid=$!
CUDA_FLAGS=-DKBIT_TCW_MBAR_SK=64 device_build . /tmp/sk-sk64 10 kbit-bench kbit-verify kbit_tests_kernels; rc=$?
wait $main_pid; rc_main=$?
s "builds: sk64 rc=$rc, main rc=$rc_main after $((SECONDS - T0)) s"
[ $rc = 0 ] && [ $rc_main = 0 ] || { tail -n 20 /tmp/sk-sk64.log /tmp/sk-main.log | tee -a "$W/summary.txt"; exit 1; }
device_install /tmp/sk-sk64  # .deps/gpu: sk64's kbit-bench, kbit-verify and kbit_tests_kernels
cp /tmp/sk-sk64/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-sk64
cp /tmp/sk-main/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-main
gpu_info
doctest_filter "*stream-K*,*LinearArgs::pdl*,*chain of linear*,*holds no more*" 120 "sk64: stream-K, PDL, chain, occupancy"
for tool in memcheck racecheck synccheck; do
  [ "$(left)" -gt 300 ] || { s "$tool skipped: $(left) s left"; continue; }
  doctest_sanitize $tool "*stream-K*" 60 sk64
done
verify_run verify-pdl 60 3 "sk64 verify --quick --pdl dense.tcw" --quick --pdl --kernels dense.tcw
verify_run verify-full 80 3 "sk64 verify --full dense.tcw M = 64, 128, 256" --full --kernels dense.tcw \
  --filter '/M(64|128|256)/'
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw,tcw_pdl
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 64,128,256 --bits 2,4 --dtypes f16"
}
BUDGET=$((BUDGET - 5)) MIN_LEFT=20 REPS=2 bench_rotation tcwmbarsk main sk64
