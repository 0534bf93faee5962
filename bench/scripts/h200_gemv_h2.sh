#!/usr/bin/env bash
# Forty-first session: gemv at M = 1, k = 3, 4 with its pair table in the activation type (KBIT_GEMV_H2, branch
# exp/gemv-h2). ncu on Llama-3-70B gate_up at M = 1, k = 4 (bench/results/2026-11-28-h200-p256, -d3): L1/shared
# throughput 87% of peak with issue at 62% and DRAM at 50% -- the float2 table's lookups (one LDS.64 per two
# weights: two wavefronts per warp-load) are the bound, which is why fewer instructions (p256) and more loads in
# flight (d3) bought nothing. H2: (cb[lo], cb[hi]) rounded to fp16/bf16 in 4-byte entries, 32 copies (the same 32
# KB): one wavefront per warp-load, two conversions more per pair (SASS f16 loop 4.67 -> 5.68 per weight). Weights
# with TiledView::half_cb only (tcw's and tcv's pair tables round the same way). One binary of each kind, built here
# for sm_90a at REC_TAG with the knob's default off, stripped, carried gzipped in .deps/gpuz; the environment's
# KBIT_GEMV_H2=1 turns it on.
# 1. The new doctest (forces H2 on and off), the gemv, split-K and PDL doctests with KBIT_GEMV_H2=1; memcheck and
#    racecheck over the new doctest.
# 2. kbit-verify over gemv and automatic with KBIT_GEMV_H2=1 on named M = 1 cases (f16, bf16, plain, --pdl).
# 3. kbit-bench gemv_pdl and automatic_pdl over the dense catalogue at M = 1, k = 3, 4, f16 and bf16, arms main
#    (KBIT_GEMV_H2=0) and h2 in rotation, three reps.
# 4. ncu (h100_pipe_util.sh) on Llama-3-70B gate_up at M = 1, k = 4 per arm; issue, L1 and DRAM lines in the summary.
# Move bench/results out for the call. Env: BUDGET (default 300 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/h2run ${BUDGET:-300}
gpu_info
doctest_filter '*activation-type*' 60 'the activation-type doctest'
cp "$W/kernels.txt" "$W/kernels-h2case.txt"
export KBIT_GEMV_H2=1
doctest_filter '*gemv*,*split-K*,*LinearArgs::pdl*' 150 'gemv, split-K, PDL doctests with KBIT_GEMV_H2=1'
doctest_sanitize memcheck '*activation-type*' 90
doctest_sanitize racecheck '*activation-type*' 120
VKERNELS="gemv automatic" verify_cases verify 60 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4 \
  dense/llama-3-70b.mlp.down/N8192.K28672/M1/k3 dense/llama-3-8b.attn.q_proj/N4096.K4096/M1/k4 \
  dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k3 dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240/M1/k4
grep -E "FAIL|cases in" "$W/verify.txt" | sed 's/in [0-9.]* s/in _ s/' | sort | uniq -c | tee -a "$W/summary.txt"
unset KBIT_GEMV_H2
dense_catalogue "$W/cat"
arm_setup() {
  KERNELS=gemv_pdl,automatic_pdl; B="--M 1 --bits 3,4 --dtypes f16,bf16"
  if [ "$1" = h2 ]; then ENV=KBIT_GEMV_H2=1; else ENV=KBIT_GEMV_H2=0; fi
}
RUN_MAX_S=60 REPS=3 MIN_LEFT=40 bench_rotation "${REC_TAG:-exp}" main h2
ncu_pipe_arms 30 KBIT_GEMV_H2 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/gemv 0 1
for a in 0 1; do
  zcat "$W"/ncu-$a/raw_*.gz 2>/dev/null | grep -E 'gpu__time_duration.sum|sm__issue_active.avg|gpu__dram_throughput.avg.pct|smsp__inst_executed.sum |l1tex__throughput.avg.pct|l1tex__data_pipe_lsu_wavefronts.avg.pct' |
    awk -v a=$a '{print "ncu H2=" a ": " $1, $NF}' | tee -a "$W/summary.txt"
done
