#!/usr/bin/env bash
# Experiment (arms of one build, environment knob KBIT_EXP_TCV_WAVE, not for main): tcv's split-K
# [The knob was never committed and the cut is now unconditional (tcv_plan_for), so on main both arms
# run the same plan; the script is the record of bench/results/2026-11-27-h100-tcvwave/first, second.]
# grids of more than one wave cut their K slices to fit one wave of the resident slots (tiles x splits
# <= slots; unsplit where one slice per tile is all that fits), as tcw's split count is rounded down.
# Llama-3-70B q/o_proj and down at M = 4 run 1024 CTAs of 2 slices on 792 slots (1.29 waves) -> 512
# unsplit; Llama-3-8B q/o_proj and down 1024 of 4 -> 768 of 3; GLM shared_experts.down 896 of 7 -> 768
# of 6. Second call (after the first, bench/results/2026-11-27-h100-tcvwave/first): one slice per tile
# no longer launches early under PDL when its warps run more than 8 steps (Llama-3-70B's cut grids
# lost 0.68-0.90x there, and won 1.08-1.25x without PDL), and the PDL rule for tcv's early split grids
# of K >= 4096 keeps tcw on k = 4's pair table for more than 8 steps per warp at M = 5..8 and for more
# than 2 at M = 9..16. Checks with the knob on: the tcv, split-K and PDL doctests and kbit-verify --quick over tcv
# (with and without --pdl). Then kbit-bench main / wave in rotation: tcv, tcv_pdl and automatic_pdl
# over Llama-3-8B, Llama-3-70B and GLM-4.7-Flash at M = 3, 4, 8, 16, k = 2..5. Pack first with
# bash bench/scripts/pack_device_build.sh. Env: TW_BUDGET (default 570 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvwave ${TW_BUDGET:-570}
device_build_new /tmp/twbuild kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
export KBIT_EXP_TCV_WAVE=1
doctest_filter '*tcv*,*split-K*,*LinearArgs::pdl*,*chain of linear*,*with PDL*' 100 'wave: tcv, split-K, PDL'
verify_run verify 50 3 "wave: verify --quick tcv" --quick --kernels tcv
verify_run verify-pdl 40 3 "wave: verify --quick --pdl tcv" --quick --pdl --kernels tcv
unset KBIT_EXP_TCV_WAVE
arm_setup() {
  KERNELS=tcv,tcv_pdl,automatic_pdl
  case $1 in wave) ENV=KBIT_EXP_TCV_WAVE=1 ;; esac
  B="--M 3,4,8,16 --bits 2,3,4,5 --dtypes f16 --models llama-3-8b llama-3-70b glm-4.7-flash"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation tcvwave main wave
