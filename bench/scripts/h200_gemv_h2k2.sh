#!/usr/bin/env bash
# Forty-first session: h200_gemv_h2.sh for k = 2 (branch exp/gemv-h2). The probe (bench/results/2026-11-28-h200-probe)
# put gemv at M = 1, k = 2 on Llama-3-70B gate_up at 91% of L1/shared throughput with issue at 61%: the adjacent-pair
# table's 8-byte loads. H2 at k = 2: the 16 codes' pairs rounded to the activation type, 32 copies, rows of 256 bytes
# (4 KB), the offset one PRMT of the code and the lane's copy (SASS f16 3.80 -> 4.71 instructions per weight; half
# the table wavefronts). Same steps as h200_gemv_h2.sh: the doctest ('*activation type*', now k = 2..4), the gemv,
# split-K and PDL doctests with KBIT_GEMV_H2=1, memcheck and racecheck over the doctest, kbit-verify on the named M = 1
# cases, then kbit-bench gemv_pdl and automatic_pdl over the dense catalogue at M = 1, k = 2, f16 and bf16, main /
# h2, three reps, and ncu on Llama-3-70B gate_up at k = 2. Env: BUDGET (default 300 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/h2k2run ${BUDGET:-300}
gpu_info
doctest_filter '*activation type*' 60 'the activation-type doctest'
cp "$W/kernels.txt" "$W/kernels-h2case.txt"
export KBIT_GEMV_H2=1
doctest_filter '*gemv*,*split-K*,*LinearArgs::pdl*' 150 'gemv, split-K, PDL doctests with KBIT_GEMV_H2=1'
doctest_sanitize memcheck '*activation type*' 90
doctest_sanitize racecheck '*activation type*' 120
VKERNELS="gemv automatic" verify_cases verify 60 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2 \
  dense/llama-3-70b.mlp.down/N8192.K28672/M1/k3 dense/llama-3-8b.attn.q_proj/N4096.K4096/M1/k2 \
  dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k3 dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240/M1/k4
grep -E "FAIL|cases in" "$W/verify.txt" | sed 's/in [0-9.]* s/in _ s/' | sort | uniq -c | tee -a "$W/summary.txt"
unset KBIT_GEMV_H2
dense_catalogue "$W/cat"
arm_setup() {
  KERNELS=gemv_pdl,automatic_pdl; B="--M 1 --bits 2 --dtypes f16,bf16"
  if [ "$1" = h2 ]; then ENV=KBIT_GEMV_H2=1; else ENV=KBIT_GEMV_H2=0; fi
}
RUN_MAX_S=60 REPS=3 MIN_LEFT=40 bench_rotation "${REC_TAG:-exp}" main h2
ncu_pipe_arms 30 KBIT_GEMV_H2 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k2/f16/gemv 0 1
for a in 0 1; do
  zcat "$W"/ncu-$a/raw_*.gz 2>/dev/null | grep -E 'gpu__time_duration.sum|sm__issue_active.avg|gpu__dram_throughput.avg.pct|smsp__inst_executed.sum |l1tex__throughput.avg.pct|l1tex__data_pipe_lsu_wavefronts.avg.pct' |
    awk -v a=$a '{print "ncu H2=" a ": " $1, $NF}' | tee -a "$W/summary.txt"
done
