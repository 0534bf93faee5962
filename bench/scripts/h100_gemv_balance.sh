#!/usr/bin/env bash
# Experiment call: gemv's K slices balanced over the CTA's warps (gemv_balance in
# lib/kbit/gemv_sched.h: the fewest slices that keep a workspace plan's rounds of k-tiles per warp;
# Qwen3 dense.down and GLM o_proj 16 -> 10 slices, GLM shared_experts.down 16 -> 14) against main,
# both built on the GPU machine (pack first with OLD=<main> bash bench/scripts/pack_device_build.sh):
# the gemv and PDL doctests, kbit-verify --quick over gemv (with and without --pdl); kbit-bench old
# and new in rotation over the catalogue at M = 1, 2, 4, k = 2..5 (gemv, gemv_pdl, automatic_pdl).
# Env: GB_BUDGET (default 480 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/gemvbalance ${GB_BUDGET:-480}
device_build_ab /tmp/gbold /tmp/gbnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
(cd .deps/gpu && timeout 120 ./kbit_tests_kernels -tc='*gemv*,*LinearArgs::pdl*,*split-K*' > "$W/kernels.txt" 2>&1)
s "kernels (gemv, pdl, split-K) rc=$? after $((SECONDS - T0)) s"; grep -E 'assertions|Status' "$W/kernels.txt" | tee -a "$W/summary.txt"
verify_run verify 40 3 "verify --quick gemv" --quick --kernels dense.gemv
verify_run verify-pdl 40 3 "verify --quick --pdl gemv" --quick --pdl --kernels dense.gemv
arm_setup() {
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,2,4 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-8b"
  KERNELS=gemv,gemv_pdl,automatic_pdl
}
MIN_LEFT=20 REPS=2 bench_rotation gemvbalance old new
