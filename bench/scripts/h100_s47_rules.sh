#!/usr/bin/env bash
# Prepared in the forty-seventh session, NOT RUN (no H100 was lent): the session's H200-measured rules on an H100. Each
# has an environment knob in main's own binary, so one build serves every arm. Carry main's kbit-bench, kbit-verify
# and kbit_tests_kernels (stripped, xz -9, .deps/gpuz/bins.txz). The plain-launch rule (tcw_mid_plain) applies on
# every GPU and matters most: plain launches are the library's default.
# The call: the whole GPU doctest binary; then three A/Bs, two reps each in rotation, f16:
#   1. plain launches at M = 3..16 (KBIT_TCW_MID_PLAIN=1 = old): automatic on the 13 shapes it moved on the H200;
#   2. the k = 3 table from 8 M weights and to M = 6 from 32 M (KBIT_TCV_PAIRS3=32 KBIT_TCV_PAIRS3_MAXM=4 = old):
#      automatic_pdl and automatic over the dense block shapes at M = 2..6, k = 3;
#   3. k <= 3's small narrow rows on tcw under PDL (KBIT_TCW_SMALL_PDL=0 = old): automatic_pdl at M = 224..320.
# Read each with bench/scripts/ab_dense.py DIR OLD NEW KERNEL, arms oldm / newm, oldp / newp, olds / news.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/h47 ${BUDGET:-420}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
shapes_subset "$W/moved" glm-4.7-flash.attn.o_proj glm-4.7-flash.mlp.shared_experts.down llama-3-70b.attn.k_proj \
  llama-3-70b.attn.v_proj llama-3-8b.attn.k_proj llama-3-8b.attn.o_proj llama-3-8b.attn.q_proj llama-3-8b.attn.qkv_proj \
  llama-3-8b.attn.v_proj qwen3-coder-next.attn.o_proj qwen3-coder-next.linear_attn.in_proj_qkvz \
  qwen3-coder-next.linear_attn.out_proj qwen3-coder-next.mlp.dense.down
arm_setup() {
  KERNELS=automatic
  B="--M 3,4,6,8,10,12,16 --bits 2,3,4,5 --dtypes f16 --non-block"
  [ "$1" = oldm ] && ENV="KBIT_TCW_MID_PLAIN=1"
}
REPS=2 MIN_LEFT=240 bench_rotation h47m oldm newm
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=automatic_pdl,automatic
  B="--M 2,3,4,5,6 --bits 3 --dtypes f16"
  [ "$1" = oldp ] && ENV="KBIT_TCV_PAIRS3=32 KBIT_TCV_PAIRS3_MAXM=4"
}
REPS=2 MIN_LEFT=100 bench_rotation h47p oldp newp
shapes_subset "$W/small" qwen3-coder-next.attn.k_proj qwen3-coder-next.attn.v_proj \
  qwen3-coder-next.mlp.shared_expert.gate_up glm-4.7-flash.attn.q_a_proj glm-4.7-flash.attn.kv_a_proj_with_mqa \
  llama-3-8b.attn.k_proj llama-3-8b.attn.v_proj
arm_setup() {
  KERNELS=automatic_pdl
  B="--M 224,256,288,320 --bits 2,3 --dtypes f16"
  [ "$1" = olds ] && ENV="KBIT_TCW_SMALL_PDL=0"
}
REPS=2 MIN_LEFT=10 bench_rotation h47s olds news
