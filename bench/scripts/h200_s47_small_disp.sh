#!/usr/bin/env bash
# Prepared in the forty-sixth session, not run: the rest of -s46l's dispatch lead. With k = 2 and 3's lone 64-token price
# (kTcwLone64K2) tcw_pdl is now 0.90-1.28x of dequant_cublas on the small shapes at M = 193..384, where automatic_pdl
# runs dequant_cublas: ahead on Qwen3 k/v_proj M = 256 (6.5 against 8.3 us) and shared_expert.gate_up M = 256, behind on
# GLM q_a_proj M = 256 and Qwen3 k/v_proj M = 384. The M grid there was too coarse (256, 320, 384) for a rule.
# Main as it is, no arms: kbit-bench tcw_pdl, automatic_pdl and dequant_cublas on those shapes at M = 192..448 in steps
# of 32, k = 2 and 3, f16, three reps; read with bench/scripts/pdl_compare.py (columns per kernel) for where tcw_pdl
# leads dequant_cublas by > 5% in every rep, per shape and k, before any bound is written.
# Build here (main), carry kbit-bench stripped and xz'd as .deps/gpuz/bins.txz (bench/scripts/README).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s47d ${BUDGET:-200}
gpu_info
shapes_subset "$W/small" qwen3-coder-next.attn.k_proj qwen3-coder-next.attn.v_proj \
  qwen3-coder-next.mlp.shared_expert.gate_up qwen3-coder-next.mlp.shared_expert.down glm-4.7-flash.attn.q_a_proj \
  glm-4.7-flash.attn.kv_a_proj_with_mqa glm-4.7-flash.attn.q_b_proj llama-3-8b.attn.k_proj llama-3-8b.attn.v_proj
arm_setup() {
  KERNELS=tcw_pdl,automatic_pdl,dequant_cublas
  B="--M 192,224,256,288,320,352,384,416,448 --bits 2,3 --dtypes f16"
}
REPS=3 MIN_LEFT=10 bench_rotation s47d main
