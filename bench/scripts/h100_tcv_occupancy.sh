#!/usr/bin/env bash
# Prepared in the twenty-fourth session, run in the twenty-fifth (lost: bench/results/2026-11-27-h100-occupancy): more warps per SM for the one-tile tcv kernels, dense
# and grouped, on the k = 2, 3 pair tables. ncu of grouped k = 4 at M = 8
# (bench/results/2026-11-27-h100-ncu-s24) shows a kernel waiting on its loads (long scoreboard 2.68 per
# issue) with 28% of warp slots active, 6 CTAs per SM capped by 80 registers. The one-tile kernels on the k = 2 and 3 tables fit 8 CTAs in shared memory; asked for 8
# (-DKBIT_TCV_PAIRS_MIN_BLOCKS=8) ptxas gives them 64 registers and no spills (dense, every mode, and
# grouped), for 7 72. The k = 4 table holds its kernels at 6 either way, so k = 4 is the control: its
# kernels do not change. Dense rows on the k = 2 table: M <= 4 (Qwen3, GLM); on the k = 3 table only
# from 32 M weights (none of these models).
# SASS of grouped (sass_prefetch_place.py, f16, against main): k = 2 190 instructions per step either
# way, its last weight prefetch 23 before the loop's end at 8 CTAs (main 105), 51 at 7; k = 3 254 / 252 against 243,
# prefetch 41 / 87 against 144. ptxas sinks the prefetch under the tighter cap, which lost before
# (bench/results/2026-11-27-h100-tcvlean), so more warps have to win more than that costs.
# Predicted: grouped M = 4, 8 at k = 2, 3 0.95-1.10x; M = 1 (640 CTAs, below one wave) about 1.0; dense
# k = 2 at M <= 4 the same range.
# One call: main (this tree), mb7 and mb8 built side by side (device_build_knob_arms); kbit-verify --quick
# over tcv and grouped_tcv for each arm; kbit-bench main / mb7 / mb8 in rotation (tcv_pdl, grouped_tcv,
# automatic_pdl; Qwen3-Coder-Next and GLM-4.7-Flash; M = 1, 2, 4, 8; k = 2, 3, 4; 2 reps); then ncu
# (h100_pipe_util.sh) of Qwen3 experts.gate_up at M = 8, k = 3 for main and mb8.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: OC_BUDGET (585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/occupancy ${OC_BUDGET:-585}
device_build_knob_arms /tmp/oc mb7=-DKBIT_TCV_PAIRS_MIN_BLOCKS=7 mb8=-DKBIT_TCV_PAIRS_MIN_BLOCKS=8 || exit 1
gpu_info
doctest_filter '*grouped_tcv*,*MoE kernels*' 60 'grouped_tcv, MoE kernels (main)'
verify_arms 60 tcv,grouped_tcv mb7 mb8
arm_setup() {
  KERNELS=tcv_pdl,grouped_tcv,automatic_pdl
  case $1 in mb7 | mb8) BIN=.deps/gpu/kbit-bench-$1 ;; esac
  B="--M 1,2,4,8 --bits 2,3,4 --dtypes f16 --models qwen3-coder-next glm-4.7-flash"
}
BUDGET=$((BUDGET - 90)) MIN_LEFT=15 REPS=2 bench_rotation occupancy main mb7 mb8
Q=moe/qwen3-coder-next.mlp.experts.gate_up/E512.N1024.K2048.top10.realistic/T8/k3/f16/grouped_tcv
for a in main mb8; do
  [ "$(left)" -gt 30 ] || break
  bin=.deps/gpu/kbit-verify; [ $a = main ] || bin=.deps/gpu/kbit-verify-$a
  mkdir -p "$W/ncu-$a"
  VERIFY=$bin OUT="$W/ncu-$a" CASES="$Q" timeout 40 bash bench/scripts/h100_pipe_util.sh > "$W/ncu-$a.log" 2>&1
  s "ncu $a rc=$? after $((SECONDS - T0)) s"
done
