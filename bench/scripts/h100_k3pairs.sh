#!/usr/bin/env bash
# grouped_tcv at k = 3 on the k = 4 pair table's first 128 rows (block_nibbles<3> codes < 8), one
# call: GPU doctests, compute-sanitizer memcheck and racecheck over the grouped one-hot doctest and
# the MoE equality doctest, kbit-verify --quick at k = 3 (grouped_tcv, tcv, automatic; tcv again with
# the dense kernel on the table at every size: KBIT_EXP_TCV3_MIN=0, a temporary switch in
# tcv_uses_pairs for this run; main has no such switch: it has the rule this run chose), then kbit-bench in rotation: arm old (the build before, carried as
# .deps/gpu/kbit-bench-old), new (this build), p3 (this build, the dense tcv on the table at every
# size), M = 1..16, k = 3, f16; then `all` (automatic, automatic_pdl, gemv, grouped_tcv at M = 1, 2,
# 4, k = 3: the block TOTAL rows). Env: K3_BUDGET (default 420 s), K3_REPS (default 2).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/k3pairs ${K3_BUDGET:-420}
gpu_info
if gpu_doctest kernels kbit_tests_kernels 120; then
  doctest_sanitize memcheck '*moe_weight_roundings*,*MoE kernels equal*' 150
  doctest_sanitize racecheck '*moe_weight_roundings*' 120
fi
verify_run verify 120 7 "verify --quick k3 grouped_tcv,tcv,automatic" --quick --kernels grouped_tcv,tcv,automatic --filter '/k3/'
VENV=KBIT_EXP_TCV3_MIN=0 verify_run verify-p3 100 4 "verify --quick k3 tcv (table at every size)" --quick --kernels tcv --filter '/k3/'
arm_setup() {
  B="--M 1,2,4,8,16 --bits 3 --dtypes f16"; KERNELS=grouped_tcv,tcv
  case $1 in
    old) BIN=.deps/gpu/kbit-bench-old ;;
    p3) KERNELS=tcv; ENV=KBIT_EXP_TCV3_MIN=0 ;;
    all) B="--M 1,2,4 --bits 3 --dtypes f16"; KERNELS=automatic,automatic_pdl,gemv,grouped_tcv ;;
  esac
}
REPS=${K3_REPS:-2} MIN_LEFT=20 bench_rotation k3pairs old new p3
REPS=1 MIN_LEFT=20 bench_rotation k3pairs-all all
