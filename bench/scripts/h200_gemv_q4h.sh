#!/usr/bin/env bash
# Forty-first session: gemv at M = 1, k = 2 on quads in the activation type (KBIT_GEMV_Q4=1 KBIT_GEMV_Q4H=1, branch
# exp/gemv-q4). ncu had the float quads (-h200-q4) at 92% of L1/shared with issue at 54%, the pair table in the
# activation type (-h200-h2k2) at 54% of L1 with issue at 79%, and main at 92% / 63%, all three at the same time:
# each was held by one of the two. Quads of halves: 8-byte entries in 16 copies (32 KB), half the table's
# wavefronts and half its loads (SASS f16 4.28, bf16 4.91 instructions per weight against main's 3.80 / 3.92).
# A short call (little device time was left): the quad doctest (float quads, half quads, pairs; bit-exact), memcheck
# and racecheck over it, kbit-verify gemv and automatic on two named cases with the knobs on, kbit-bench gemv_pdl and
# automatic_pdl over the dense catalogue at M = 1, k = 2, f16 and bf16, main / q4h, three reps, ncu on Llama-3-70B
# gate_up. Env: BUDGET (default 150 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/q4hrun ${BUDGET:-150}
gpu_info
doctest_filter '*quad table*' 60 'the quad-table doctest'
doctest_sanitize memcheck '*quad table*' 60
doctest_sanitize racecheck '*quad table*' 60
export KBIT_GEMV_Q4=1 KBIT_GEMV_Q4H=1
VKERNELS="gemv automatic" verify_cases verify 40 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2 \
  dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k2
grep -E "FAIL|cases in" "$W/verify.txt" | sed 's/in [0-9.]* s/in _ s/' | sort | uniq -c | tee -a "$W/summary.txt"
unset KBIT_GEMV_Q4 KBIT_GEMV_Q4H
dense_catalogue "$W/cat"
arm_setup() {
  KERNELS=gemv_pdl,automatic_pdl; B="--M 1 --bits 2 --dtypes f16,bf16"
  if [ "$1" = q4h ]; then ENV="KBIT_GEMV_Q4=1 KBIT_GEMV_Q4H=1"; else ENV=KBIT_GEMV_Q4=0; fi
}
RUN_MAX_S=30 REPS=3 MIN_LEFT=15 bench_rotation "${REC_TAG:-exp}" main q4h
for a in 0 1; do
  mkdir -p "$W/ncu-$a"
  env KBIT_GEMV_Q4=$a KBIT_GEMV_Q4H=$a OUT="$W/ncu-$a" CASES=dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/gemv \
    timeout 30 bash bench/scripts/h100_pipe_util.sh > "$W/ncu-$a.log" 2>&1
  zcat "$W"/ncu-$a/raw_*.gz 2>/dev/null | grep -E 'gpu__time_duration.sum|sm__issue_active.avg|gpu__dram_throughput.avg.pct|smsp__inst_executed.sum |l1tex__throughput.avg.pct' |
    awk -v a=$a '{print "ncu Q4H=" a ": " $1, $NF}' | tee -a "$W/summary.txt"
done
