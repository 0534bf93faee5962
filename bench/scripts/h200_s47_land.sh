#!/usr/bin/env bash
# Forty-seventh session, landing call (H200; built here, carried): the two rules of -s47p and -s47d on main.
# - kTcvPairs3MinWeights: the dense k = 3 tcv on its pair table from 8 M weights at M <= 4 (was 32 M);
#   KBIT_TCV_PAIRS3=32 restores the old bound. Dispatch's M = 2 rule keeps 32 M.
# - tcw_small_pdl: under live PDL, k <= 3's small narrow rows (N <= 1024, K >= 2048) take tcw to M = 256 (K >= 4096:
#   320); KBIT_TCW_SMALL_PDL=0 restores the old rule.
# Steps: the whole GPU doctest binary; kbit-verify tcv and automatic on named k = 3 cases of 8-32 M weights at
# M = 1..4 (plain and --pdl, f16 and bf16) and automatic --pdl on the moved small rows; memcheck on two tcv cases
# on the new tables; then old / new in rotation: tcv_pdl, automatic_pdl, automatic over the dense catalogue at
# M = 1..4, k = 3 (arms oldp/newp); automatic_pdl on the small shapes at M = 224..320, k = 2, 3 (arms olds/news).
# Read with bench/scripts/pdl_compare.py DIR oldp:automatic_pdl newp:automatic_pdl ... (per arm pair).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s47l ${BUDGET:-420}
gpu_info
gpu_doctest kernels kbit_tests_kernels 120
L8=dense/llama-3-8b.attn.q_proj/N4096.K4096
QG=dense/qwen3-coder-next.mlp.dense.gate_up/N10240.K2048
L70=dense/llama-3-70b.attn.k_proj/N1024.K8192
GD=dense/glm-4.7-flash.mlp.shared_experts.down/N2048.K10240
VKERNELS="tcv automatic" verify_cases verify-pairs3 30 $L8/M1/k3 $L8/M2/k3 $QG/M3/k3 $L70/M4/k3 $GD/M2/k3
QK=dense/qwen3-coder-next.attn.k_proj/N512.K2048
GA=dense/glm-4.7-flash.attn.q_a_proj/N768.K2048
LK=dense/llama-3-8b.attn.k_proj/N1024.K4096
verify_moved 30 $QK/M256/k3 $QK/M224/k2 $GA/M256/k2 $LK/M320/k3 $LK/M288/k2
sanitize_cases pairs3 90 memcheck $L8/M2/k3/f16/tcv $QG/M3/k3/bf16/tcv
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcv_pdl,automatic_pdl,automatic
  B="--M 1,2,3,4 --bits 3 --dtypes f16"
  [ "$1" = oldp ] && ENV="KBIT_TCV_PAIRS3=32"
}
REPS=2 MIN_LEFT=120 bench_rotation s47l oldp newp
shapes_subset "$W/small" qwen3-coder-next.attn.k_proj qwen3-coder-next.attn.v_proj \
  qwen3-coder-next.mlp.shared_expert.gate_up glm-4.7-flash.attn.q_a_proj glm-4.7-flash.attn.kv_a_proj_with_mqa \
  llama-3-8b.attn.k_proj llama-3-8b.attn.v_proj qwen3-coder-next.attn.q_proj
arm_setup() {
  KERNELS=automatic_pdl
  B="--M 224,256,288,320 --bits 2,3 --dtypes f16"
  [ "$1" = olds ] && ENV="KBIT_TCW_SMALL_PDL=0"
}
REPS=3 MIN_LEFT=10 bench_rotation s47l olds news
