#!/usr/bin/env bash
# Forty-first session: gemv at M = 1, k = 3, 4 with three k-tiles per warp in flight (KBIT_GEMV_D3, branch
# exp/gemv-p256). ncu on Llama-3-70B gate_up (bench/results/2026-11-28-h200-p256): the pair-table loop issues on 62%
# of cycles with DRAM 50% busy, and 16% fewer instructions (the 256-byte table at k = 3) bought nothing -- the loop
# waits on its loads (long scoreboard), so more bytes in flight, not fewer instructions. D3: three named register
# tiles (the loop unrolled by three, each refilled once its step has read it), the tile without activations (the
# slice's activations copied once into shared memory). One binary of each kind, built here for sm_90a at REC_TAG
# with the knob's default off, stripped, carried in .deps/gpu; the environment's KBIT_GEMV_D3=1 turns it on.
# 1. The new doctest (forces D3 on and off), the gemv, split-K and PDL doctests with KBIT_GEMV_D3=1; memcheck and
#    racecheck over the new doctest.
# 2. kbit-verify over gemv and automatic with KBIT_GEMV_D3=1 on named M = 1 cases (f16, bf16, plain, --pdl).
# 3. kbit-bench gemv_pdl and automatic_pdl over the dense catalogue at M = 1, k = 3, 4, f16 and bf16, arms main
#    (KBIT_GEMV_D3=0) and d3 in rotation, three reps.
# 4. ncu (h100_pipe_util.sh) on Llama-3-70B gate_up at M = 1, k = 4 per arm; issue and DRAM lines into the summary.
# Move bench/results out for the call. Env: BUDGET (default 300 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/d3run ${BUDGET:-300}
gpu_info
doctest_filter '*three-tile*' 60 'the three-tile doctest'
cp "$W/kernels.txt" "$W/kernels-d3case.txt"
export KBIT_GEMV_D3=1
doctest_filter '*gemv*,*split-K*,*LinearArgs::pdl*' 150 'gemv, split-K, PDL doctests with KBIT_GEMV_D3=1'
doctest_sanitize memcheck '*three-tile*' 90
doctest_sanitize racecheck '*three-tile*' 120
VKERNELS="gemv automatic" verify_cases verify 60 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4 \
  dense/llama-3-70b.mlp.down/N8192.K28672/M1/k3 dense/llama-3-8b.attn.q_proj/N4096.K4096/M1/k4 \
  dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k3 dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240/M1/k4
grep -E "FAIL|cases in" "$W/verify.txt" | sed 's/in [0-9.]* s/in _ s/' | sort | uniq -c | tee -a "$W/summary.txt"
unset KBIT_GEMV_D3
dense_catalogue "$W/cat"
arm_setup() {
  KERNELS=gemv_pdl,automatic_pdl; B="--M 1 --bits 3,4 --dtypes f16,bf16"
  if [ "$1" = d3 ]; then ENV=KBIT_GEMV_D3=1; else ENV=KBIT_GEMV_D3=0; fi
}
RUN_MAX_S=60 REPS=3 MIN_LEFT=40 bench_rotation "${REC_TAG:-exp}" main d3
ncu_pipe_arms 30 KBIT_GEMV_D3 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/gemv 0 1
for a in 0 1; do
  zcat "$W"/ncu-$a/raw_*.gz 2>/dev/null | grep -E 'gpu__time_duration.sum|sm__issue_active.avg|gpu__dram_throughput.avg.pct|smsp__inst_executed.sum ' |
    awk -v a=$a '{print "ncu D3=" a ": " $1, $NF}' | tee -a "$W/summary.txt"
done
