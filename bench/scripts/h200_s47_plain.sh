#!/usr/bin/env bash
# Forty-seventh session: plain launches (no PDL) at M = 3..8 on the 8-40 M dense shapes. -s47l saw automatic (plain)
# at M = 3, 4, k = 3 run tcw on Llama-3-8B q/o_proj (16.8 M) and GLM shared_experts.down (21 M) in 11.1 / 12.9 us,
# against tcv_pdl's 6.9 / 8.0. The rule (kernels/api.cu, after the PDL block): tcw on 12-32 M weights at M <= 8 where
# tcv runs no one pass -- H100, k = 4, 2026-11-25, when tcv decoded by offsets there; since then tcv has its step
# loops, its one-wave grids and (k = 3, M <= 4) the pair table. Predicted: tcv ahead at M = 3, 4 on those shapes at
# every k (1.1-1.5x at k = 3 from the PDL times), less so at M = 8.
# kbit-bench tcv, tcw and automatic (all plain) on the shapes, M = 3, 4, 5, 6, 8, k = 2..5, f16, two reps.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s47x ${BUDGET:-200}
gpu_info
shapes_subset "$W/mid" llama-3-8b.attn.q_proj llama-3-8b.attn.o_proj llama-3-8b.attn.qkv_proj \
  qwen3-coder-next.attn.q_proj_gated qwen3-coder-next.linear_attn.in_proj_qkvz qwen3-coder-next.mlp.dense.gate_up \
  glm-4.7-flash.mlp.shared_experts.down glm-4.7-flash.mlp.shared_experts.gate qwen3-coder-next.attn.o_proj \
  glm-4.7-flash.attn.o_proj llama-3-70b.attn.k_proj
arm_setup() {
  KERNELS=tcv,tcw,automatic
  B="--M 3,4,5,6,8 --bits 2,3,4,5 --dtypes f16 --non-block"
}
REPS=2 MIN_LEFT=10 bench_rotation s47x main
