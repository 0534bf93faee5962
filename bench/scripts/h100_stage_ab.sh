#!/usr/bin/env bash
# The k = 4 pair table staged by an unrolled loop (tcv_decode.cuh: stage_pair_table) and grouped_tcv
# on the k = 2 adjacent pair table, against main's build, one call: GPU doctests, compute-sanitizer
# memcheck and racecheck over the one-hot decode doctests (dense and grouped) and the MoE equality
# doctest, kbit-verify --quick (grouped_tcv, tcv, tcw and automatic at k = 2 and 4; tcv again with
# the pair table at every size), then kbit-bench in rotation: arm old (main's kbit-bench, carried as
# .deps/gpu/kbit-bench-old), new (this build), newp (this build, the dense tcv on the k = 4 pair table
# at every size: KBIT_EXP_TCV_PAIRS_MIN=0, a temporary switch in tcv_uses_pairs for these runs; main has no such
# switch, so arm newp now times the same kernels as new), M =
# 1..16, k = 2 and 4, f16; then ncu source counters of grouped_tcv on Qwen3-Coder-Next experts.gate_up
# at M = 1, k = 4 (the profile that asked for the change). Env: ST_BUDGET (default 480 s), ST_REPS
# (default 2), ST_B (sweep flags).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/stage ${ST_BUDGET:-480}
doctest_checks 120 '*documented W*,*moe_weight_roundings*,*MoE kernels equal*' 200 '*documented W*,*moe_weight_roundings*' 150
verify_run verify 150 9 "verify --quick k2,k4 grouped_tcv,tcv,tcw,automatic" --quick --kernels grouped_tcv,tcv,tcw,automatic --filter '/k[24]/'
VENV=KBIT_EXP_TCV_PAIRS_MIN=0 verify_run verify-p 100 4 "verify --quick k4 tcv (pair table at every size)" --quick --kernels tcv --filter '/k4/'
B="${ST_B:---M 1,2,4,8,16 --bits 2,4 --dtypes f16}"
arm_setup() {
  KERNELS=tcv,grouped_tcv,tcw,automatic_pdl
  case $1 in
    old) BIN=.deps/gpu/kbit-bench-old ;;
    newp) KERNELS=tcv; ENV=KBIT_EXP_TCV_PAIRS_MIN=0 ;;
  esac
}
REPS=${ST_REPS:-2} MIN_LEFT=20 bench_rotation stage old new newp
if [ "$(left)" -gt 30 ]; then
  OUT=$W NCU_KERNELS='grouped_tcv_kernel' NCU_EXTRA_SECTIONS=SourceCounters NCU_SOURCE_PAGE=1 timeout $(( $(left) - 5 )) \
    bash bench/scripts/h100_ncu_profile.sh "moe/qwen3-coder-next.mlp.experts.gate_up/E512.N1024.K2048.top10.realistic/T1/k4/f16/grouped_tcv" \
    > "$W/ncu.log" 2>&1
  s "ncu grouped_tcv rc=$? after $((SECONDS - T0)) s"
fi
