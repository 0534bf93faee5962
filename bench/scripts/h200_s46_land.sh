#!/usr/bin/env bash
# Forty-sixth session, landing call (H200; built here, carried): tcw's 64-token step for k = 2 and 3 priced at 0.85 where
# the plan counts one CTA per SM (kTcwLone64K2, lib/kbit/tcw_sched.h; from -s46b's forced tiles), with
# KBIT_TCW_LONE64=0 in the environment restoring the fitted 1.27, for the A/B in one binary:
#   1. the whole GPU doctest binary; kbit-verify over tcw at M = 80, 128, 256, 512; memcheck and racecheck on two moved
#      cases (Qwen3 k_proj M = 128, k = 2; GLM q_b_proj M = 192, k = 3: 64-token plans now);
#   2. kbit-bench tcw_pdl, automatic_pdl and dequant_cublas on the shapes the price moves (Qwen3 k/v_proj,
#      shared_expert; GLM q_a, kv_a, q_b_proj; Llama-3-8B k/v_proj) and two controls (Qwen3 q_proj, Llama-3-8B q_proj)
#      at M = 80 .. 1024, k = 2 and 3, f16: fitted (KBIT_TCW_LONE64=0) / new in rotation, two reps;
#   3. the targets record with the new price: automatic and automatic_pdl over the whole catalogue, M = 1 .. 1024,
#      k = 2 and 4, f16, then bench/scripts/targets.py (the first record since -final-s45; it has the item-major grid).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s46l ${BUDGET:-500}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
verify_run verify-tcw 90 6 "verify tcw --m 80,128,256,512" --m 80,128,256,512 --kernels dense.tcw
sanitize_cases lone64 90 "memcheck racecheck" \
  dense/qwen3-coder-next.attn.k_proj/N512.K2048/M128/k2/f16/tcw dense/glm-4.7-flash.attn.q_b_proj/N5120.K768/M192/k3/bf16/tcw
shapes_subset "$W/small" qwen3-coder-next.attn.q_proj qwen3-coder-next.attn.k_proj qwen3-coder-next.attn.v_proj \
  qwen3-coder-next.mlp.shared_expert.gate_up qwen3-coder-next.mlp.shared_expert.down glm-4.7-flash.attn.q_a_proj \
  glm-4.7-flash.attn.kv_a_proj_with_mqa glm-4.7-flash.attn.q_b_proj llama-3-8b.attn.q_proj llama-3-8b.attn.k_proj \
  llama-3-8b.attn.v_proj
arm_setup() {
  KERNELS=tcw_pdl,automatic_pdl,dequant_cublas
  B="--M 80,96,128,160,192,256,320,384,512,768,1024 --bits 2,3 --dtypes f16"
  [ "$1" = fitted ] && ENV="KBIT_TCW_LONE64=0"
}
all=$BUDGET; BUDGET=$(( all - 190 ))  # the record gets the last 190 s
REPS=2 MIN_LEFT=20 bench_rotation s46l fitted new
BUDGET=$all
SHAPES="$R/data/shapes.json"
arm_setup() { B="--M 1,2,4,8,16,32,64,128,256,512,1024 --bits 2,4 --dtypes f16 --markdown $W/report.md --svg-dir $W/svg"; }
REPS=1 MIN_LEFT=60 bench_rotation s46 record
python3 bench/scripts/targets.py "$W/bench-1-record.json" --markdown "$W/targets.md" >> "$W/summary.txt" 2>&1
tail -14 "$W/summary.txt"
