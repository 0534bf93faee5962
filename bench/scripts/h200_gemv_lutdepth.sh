#!/usr/bin/env bash
# Forty-second session: gemv's activation-sum tables (M = 1, k = 2) with two k-tiles in flight per warp
# (KBIT_GEMV_LUT_DEPTH=2, branch exp/gemv-lut2) against one (the landed form). With the tables the k = 2 loop runs
# within 16% of the loads-only probe (-h200-probe: 45.9 us on Llama-3-70B gate_up), which was itself latency-bound (61%
# of DRAM with one 1 KB tile in flight per warp); depth 2 holds 121 registers (4 CTAs per SM, from 5 at 92): 16 warps
# x 2 KB in flight per SM against 20 x 1 KB. Predicted 1.05-1.12x on the large k = 2 shapes if the memory side's
# latency is the limit, a loss on the small ones (fewer warps). The LUT doctest, the gemv / split-K / PDL doctests,
# memcheck and racecheck, kbit-verify --full at M = 1, k = 2 (plain and --pdl), all with depth 2; kbit-bench gemv_pdl
# and automatic_pdl at M = 1, k = 2, d1 / d2 in rotation, three reps; ncu on gate_up per arm. Build here, strip, gzip
# the three binaries into .deps/gpuz/bins.tgz, carry .deps/gpuz. Env: BUDGET (default 300 s).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/lutdepth ${BUDGET:-300}
gpu_info
export KBIT_GEMV_LUT_DEPTH=2
doctest_filter '*activation-sum*' 60 'the LUT doctest, depth 2'
cp "$W/kernels.txt" "$W/kernels-lutcase.txt"
doctest_filter '*gemv*,*split-K*,*LinearArgs::pdl*' 150 'gemv, split-K, PDL doctests, depth 2'
doctest_sanitize memcheck '*activation-sum*' 90
doctest_sanitize racecheck '*activation-sum*' 120
verify_run verify-k2m1 150 3 "verify --full gemv,automatic M = 1, k = 2, depth 2" --full --kernels gemv,automatic \
  --filter '/M1/k2/'
verify_run verify-k2m1-pdl 150 3 "verify --full --pdl gemv,automatic M = 1, k = 2, depth 2" --full --pdl \
  --kernels gemv,automatic --filter '/M1/k2/'
unset KBIT_GEMV_LUT_DEPTH
dense_catalogue "$W/cat"
arm_setup() {
  KERNELS=gemv_pdl,automatic_pdl; B="--M 1 --bits 2 --dtypes f16,bf16"
  ENV=KBIT_GEMV_LUT_DEPTH=${1#d}
}
RUN_MAX_S=45 REPS=3 MIN_LEFT=40 bench_rotation "${REC_TAG:-lutdepth}" d1 d2
ncu_pipe_arms 30 KBIT_GEMV_LUT_DEPTH dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/gemv 1 2
for a in 1 2; do
  zcat "$W"/ncu-$a/raw_*.gz 2>/dev/null |
    grep -E 'gpu__time_duration.sum|sm__issue_active.avg|gpu__dram_throughput.avg.pct|smsp__inst_executed.sum |l1tex__throughput.avg.pct|launch__registers_per_thread ' |
    awk -v a="KBIT_GEMV_LUT_DEPTH=$a" '{print "ncu " a ": " $1, $NF}' | tee -a "$W/summary.txt"
done
