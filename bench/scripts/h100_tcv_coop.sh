#!/usr/bin/env bash
# Warp-cooperative L2 hints in tcv_tile (after bench/results/2026-11-27-h100-tcvlean, where four
# hints per lane and step won 1.00-1.17x at grouped k = 3 but their ~23 instructions per step lost
# elsewhere): each lane l < 2 (KB + 3) hints one line of the warp's rows in the two k-tiles of
# step + 2 kw (KB word lines, the last word, the first and last absmax byte), one CCTL.E.PF2 and a
# countdown per lane and step: 5-17 instructions per step more than main. In every dense and
# grouped tcv kernel (KBIT_TCV_COOP, KBIT_TCV_COOP_DENSE: experiment knobs). One call, OLD (main,
# .deps/old-src.txz) and this tree built side by side: the tcv/MoE doctests, memcheck, kbit-verify
# --quick (time-limited), then kbit-bench old / new in rotation (automatic_pdl, tcv_pdl, grouped_tcv)
# over Qwen3-Coder-Next, GLM-4.7-Flash and Llama-3-70B at M = 1, 2, 4, 8, 16, k = 2..5.
# The tree it ran on: main 3d83ad3 + bench/results/2026-11-27-h100-tcvlean/third/coop.patch (not landed).
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh. Env: COOP_BUDGET (default 585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvcoop ${COOP_BUDGET:-585}
device_build_ab /tmp/coopold /tmp/coopnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*tcv*,*MoE*,*grouped*,*one-hot*,*exact*' 120 'tcv, MoE, grouped, one-hot, exact'
doctest_sanitize memcheck '*tcv*,*MoE kernels equal*' 90
verify_run verify 45 4 "verify --quick tcv,grouped_tcv,automatic" --quick --kernels tcv,grouped_tcv,automatic
verify_run verify-pdl 40 4 "verify --quick --pdl tcv,grouped_tcv,automatic" --quick --pdl --kernels tcv,grouped_tcv,automatic
arm_setup() {
  KERNELS=automatic_pdl,tcv_pdl,grouped_tcv
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,2,4,8,16 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-70b"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation tcvcoop old new
