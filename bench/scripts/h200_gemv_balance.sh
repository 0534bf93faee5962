#!/usr/bin/env bash
# Forty-second session: why two tiles in flight (KBIT_GEMV_LUT_DEPTH=2, -h200-lutdepth) won 6-14% on the one-wave split
# grids of ~512 CTAs (Llama-3-70B k_proj 512 CTAs, one k-tile per warp, the same plan in both arms) and lost on the
# multi-wave and wide grids: depth 2's 121 registers cap an SM at 4 CTAs (5 at depth 1), which may spread a one-wave
# grid of 512 CTAs evenly over 132 SMs where 5 let some SMs stack CTAs. KBIT_GEMV_BALANCE=1 tests that alone: one-wave
# grids of the register pipeline ask for unused dynamic shared memory so that no SM holds more than ceil(CTAs / SMs).
# Predicted: bal ~ d2 on the ~512-CTA grids (1.06-1.14x at k = 2), no change on multi-wave grids; at k = 4 the same
# grids if its occupancy leaves room (else nothing). Checks with the knob on: the gemv / split-K / PDL doctests,
# kbit-verify --full at M = 1, k = 2 and 4 (plain and --pdl). kbit-bench gemv_pdl, automatic_pdl and gemv at M = 1,
# k = 2 and 4, arms d1 / bal / d2, three reps. Env: BUDGET (default 330 s).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/balance ${BUDGET:-330}
gpu_info
export KBIT_GEMV_BALANCE=1
doctest_filter '*gemv*,*split-K*,*LinearArgs::pdl*' 150 'gemv, split-K, PDL doctests, balance on'
verify_run verify-m1 150 3 "verify --full gemv,automatic M = 1, k = 2, 4, balance on" --full --kernels gemv,automatic \
  --filter '/M1/k[24]/'
verify_run verify-m1-pdl 150 3 "verify --full --pdl gemv,automatic M = 1, k = 2, 4, balance on" --full --pdl \
  --kernels gemv,automatic --filter '/M1/k[24]/'
unset KBIT_GEMV_BALANCE
dense_catalogue "$W/cat"
arm_setup() {
  KERNELS=gemv,gemv_pdl,automatic_pdl; B="--M 1 --bits 2 4 --dtypes f16"
  case $1 in
    d1) ENV=KBIT_GEMV_BALANCE=0 ;;
    bal) ENV=KBIT_GEMV_BALANCE=1 ;;
    d2) ENV=KBIT_GEMV_LUT_DEPTH=2 ;;
  esac
}
RUN_MAX_S=40 REPS=3 MIN_LEFT=20 bench_rotation "${REC_TAG:-balance}" d1 bal d2
