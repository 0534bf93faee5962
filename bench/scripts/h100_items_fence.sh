#!/usr/bin/env bash
# Two launch-level changes against main's build: the grouped grids sized by the tight work-item
# bound (lib/kbit/moe_sched.h: moe_max_items = n + (rows - n) / chunk, was n + rows / chunk: half
# the CTAs of grouped_gemv at one row per expert) and the split-K arrival on one acquire-release
# atomic instead of a sequentially consistent fence in every thread (common.cuh: splitk_arrive;
# gemv, tcv and mma). Two calls on one warm machine, the binaries built there
# (lib/device_build.sh; pack first with OLD=<main> bench/scripts/pack_device_build.sh):
#   IF_PHASE=check (default): build this tree and main's kbit-bench; the GPU doctests, compute-
#     sanitizer memcheck over the split-K, MoE equality and MoE PDL doctests and racecheck over the
#     split-K and MoE equality doctests, kbit-verify --quick over gemv, tcv, mma and every MoE
#     kernel, then --pdl over the MoE kernels.
#   IF_PHASE=bench: kbit-bench, arm old (main's) and new (this build) in rotation: MoE decode sizes
#     (M = 1..4, 8, 16, k = 2..5: grouped_gemv, grouped_tcv, automatic_pdl) and the dense split-K
#     kernels (M = 1, 2, 4, k = 2, 4: gemv, tcv); then ncu source counters of grouped_gemv on
#     Qwen3-Coder-Next experts.down at M = 1, k = 4 (the profile before:
#     bench/results/2026-11-26-h100-stage/ncu-before).
# Env: IF_BUDGET (default 540 s), IF_REPS (default 2).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
PHASE=${IF_PHASE:-check}
device_run_init /tmp/itemsfence-$PHASE ${IF_BUDGET:-540}
if [ "$PHASE" = check ]; then
  device_build_ab /tmp/ifold /tmp/ifnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
  doctest_checks 150 '*split-K*,*MoE kernels equal*,*MoeArgs::pdl*' 150 '*split-K*,*MoE kernels equal*' 150
  verify_run verify 120 12 "verify --quick gemv,tcv,mma + moe" --quick --kernels gemv,tcv,mma,moe
  verify_run verify-pdl 60 8 "verify --quick --pdl moe" --quick --pdl --kernels moe
  exit 0
fi
REPS=${IF_REPS:-2} MIN_LEFT=20 dense_moe_ab itemsfence "--M 1,2,4 --bits 2,4 --dtypes f16" gemv,tcv \
  "--M 1,2,3,4,8,16 --bits 2,3,4,5 --dtypes f16" grouped_gemv,grouped_tcv,automatic_pdl
if [ "$(left)" -gt 40 ]; then
  OUT=$W NCU_KERNELS='grouped_gemv_kernel' NCU_EXTRA_SECTIONS=SourceCounters NCU_SOURCE_PAGE=1 timeout $(( $(left) - 5 )) \
    bash bench/scripts/h100_ncu_profile.sh "moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T1/k4/f16/grouped_gemv" \
    > "$W/ncu.log" 2>&1
  s "ncu grouped_gemv rc=$? after $((SECONDS - T0)) s"
fi
