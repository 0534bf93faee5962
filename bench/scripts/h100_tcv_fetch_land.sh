#!/usr/bin/env bash
# The per-kernel step loops of tcv_fetch_of and grouped_tcv_kernel (kernels/tcv.cu; chosen from
# bench/results/2026-11-27-h100-leanall), checked and measured against main before them (OLD, packed
# as .deps/old-src.txz). Every one of the 124 tcv kernels of this tree is SASS-identical to the arm of
# -leanall (or main) that its table entry names (checked here with nvdisasm before the call).
# One call, OLD and this tree built side by side: the tcv, MoE, grouped, one-hot and exact doctests,
# memcheck over the tcv and MoE doctests, kbit-verify --quick over tcv, grouped_tcv and automatic with
# and without --pdl, then kbit-bench old / new in rotation (automatic_pdl, tcv_pdl, grouped_tcv) over
# Qwen3-Coder-Next, GLM-4.7-Flash and Llama-3-70B at M = 1, 4, 8, 16, k = 2..5, 2 reps.
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz and
# .deps/old-src.txz. Env: FL_BUDGET (default 585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/fetchland ${FL_BUDGET:-585}
device_build_ab /tmp/flold /tmp/flnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*tcv*,*MoE*,*grouped*,*one-hot*,*exact*' 90 'tcv, MoE, grouped, one-hot, exact'
doctest_sanitize memcheck '*tcv*,*MoE kernels equal*' 60
verify_run verify 60 4 "verify --quick tcv,grouped_tcv,automatic" --quick --kernels tcv,grouped_tcv,automatic
verify_run verify-pdl 55 4 "verify --quick --pdl tcv,grouped_tcv,automatic" --quick --pdl --kernels tcv,grouped_tcv,automatic
arm_setup() {
  KERNELS=automatic_pdl,tcv_pdl,grouped_tcv
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,4,8,16 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-70b"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation fetchland old new
