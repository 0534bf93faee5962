#!/usr/bin/env bash
# Forty-first session: gemv's pair table on 256-byte rows at M = 1, k = 3, 4 (KBIT_GEMV_P256, branch exp/gemv-p256):
# entry e, copy l at byte e << 8 | l << 3, so the table offset is one PRMT of the index byte and the lane's offset
# (no LEA/IMAD per pair), and the step reads the tile in place (no register copy of the prefetch buffer). SASS of the
# f16 k = 4 workspace kernel's loop: 598 -> 505 instructions per 128 weights (4.67 -> 3.95 per weight). One binary
# of each kind, built here for sm_90a at REC_TAG with the knob's default off, stripped, carried in .deps/gpu; the
# environment's KBIT_GEMV_P256=1 turns it on.
# 1. The new doctest (forces the table on and off), then the gemv, split-K and PDL doctests with KBIT_GEMV_P256=1;
#    memcheck and racecheck over the new doctest.
# 2. kbit-verify over gemv and automatic with KBIT_GEMV_P256=1 on named M = 1 cases (f16, bf16, plain, --pdl).
# 3. kbit-bench gemv_pdl and automatic_pdl over the dense catalogue at M = 1, k = 3, 4, f16 and bf16, arms main
#    (KBIT_GEMV_P256=0) and p256 in rotation, three reps.
# 4. ncu (h100_pipe_util.sh) on Llama-3-70B gate_up at M = 1, k = 4 per arm, if time is left.
# Move bench/results out for the call. Env: BUDGET (default 430 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init "$OUT/p256" ${BUDGET:-430}
gpu_info
doctest_filter '*256-byte-row*' 60 'the 256-byte-row doctest'
cp "$W/kernels.txt" "$W/kernels-p256case.txt"
export KBIT_GEMV_P256=1
doctest_filter '*gemv*,*split-K*,*LinearArgs::pdl*' 150 'gemv, split-K, PDL doctests with KBIT_GEMV_P256=1'
doctest_sanitize memcheck '*256-byte-row*' 90
doctest_sanitize racecheck '*256-byte-row*' 120
VKERNELS="gemv automatic" verify_cases verify 60 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4 \
  dense/llama-3-70b.mlp.down/N8192.K28672/M1/k3 dense/llama-3-8b.attn.q_proj/N4096.K4096/M1/k4 \
  dense/qwen3-coder-next.attn.q_proj/N4096.K2048/M1/k3 dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240/M1/k4
grep -E "FAIL|cases in" "$W/verify.txt" | sed 's/in [0-9.]* s/in _ s/' | sort | uniq -c | tee -a "$W/summary.txt"
unset KBIT_GEMV_P256
dense_catalogue "$W/cat"
arm_setup() {
  KERNELS=gemv_pdl,automatic_pdl; B="--M 1 --bits 3,4 --dtypes f16,bf16"
  if [ "$1" = p256 ]; then ENV=KBIT_GEMV_P256=1; else ENV=KBIT_GEMV_P256=0; fi
}
RUN_MAX_S=60 REPS=3 MIN_LEFT=40 bench_rotation "${REC_TAG:-exp}" main p256
ncu_pipe_arms 60 KBIT_GEMV_P256 dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/gemv 0 1
