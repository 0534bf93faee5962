#!/usr/bin/env bash
# Forty-first session: gemv at M = 1 stepping its tile in place (KBIT_GEMV_IP, branch exp/gemv-h2), k = 2 with 5
# CTAs per SM instead of 4. The probe (bench/results/2026-11-28-h200-probe) had gemv's k = 2 loads alone at 61% of
# DRAM on Llama-3-70B gate_up (latency-bound: two half-size tiles in flight per warp), and H2 at k = 2
# (-h200-h2k2) took half the L1/shared traffic and a quarter more instructions for no change at all: more warps in
# flight is what is left to try there. The in-place step (no copy of the prefetch buffer) frees the registers; at
# k = 3 and 4 it runs at main's occupancy (their SASS loop is unchanged in length). Same steps as
# h200_gemv_h2k2.sh: the doctest ('*in-place step*'), the gemv, split-K and PDL doctests with KBIT_GEMV_IP=1,
# memcheck and racecheck over the doctest, kbit-verify on the named M = 1 cases, kbit-bench gemv_pdl and
# automatic_pdl over the dense catalogue at M = 1, k = 2, 3, 4, f16 and bf16, main / ip, three reps, and ncu on
# Llama-3-70B gate_up at k = 2. Env: BUDGET (default 300 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/iprun ${BUDGET:-300}
gpu_info
doctest_filter '*in-place step*' 60 'the in-place doctest'
cp "$W/kernels.txt" "$W/kernels-ipcase.txt"
export KBIT_GEMV_IP=1
doctest_filter '*gemv*,*split-K*,*LinearArgs::pdl*' 150 'gemv, split-K, PDL doctests with KBIT_GEMV_IP=1'
doctest_sanitize memcheck '*in-place step*' 90
doctest_sanitize racecheck '*in-place step*' 120
VKERNELS="gemv automatic" verify_cases verify 60 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2 \
  dense/llama-3-70b.mlp.down/N8192.K28672/M1/k3 dense/llama-3-8b.attn.q_proj/N4096.K4096/M1/k2 \
  dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k3 dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240/M1/k4
grep -E "FAIL|cases in" "$W/verify.txt" | sed 's/in [0-9.]* s/in _ s/' | sort | uniq -c | tee -a "$W/summary.txt"
unset KBIT_GEMV_IP
dense_catalogue "$W/cat"
arm_setup() {
  KERNELS=gemv_pdl,automatic_pdl; B="--M 1 --bits 2,3,4 --dtypes f16,bf16"
  if [ "$1" = ip ]; then ENV=KBIT_GEMV_IP=1; else ENV=KBIT_GEMV_IP=0; fi
}
RUN_MAX_S=60 REPS=3 MIN_LEFT=40 bench_rotation "${REC_TAG:-exp}" main ip
ncu_pipe_arms 30 KBIT_GEMV_IP dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/gemv 0 1
for a in 0 1; do
  zcat "$W"/ncu-$a/raw_*.gz 2>/dev/null | grep -E 'gpu__time_duration.sum|sm__issue_active.avg|gpu__dram_throughput.avg.pct|smsp__inst_executed.sum |l1tex__throughput.avg.pct|l1tex__data_pipe_lsu_wavefronts.avg.pct' |
    awk -v a=$a '{print "ncu IP=" a ": " $1, $NF}' | tee -a "$W/summary.txt"
done
