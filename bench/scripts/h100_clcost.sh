#!/usr/bin/env bash
# Thirty-fifth session, first call. (1) main's GPU checks for what the thirty-fourth session landed unrun: every
# kernel GPU doctest (the narrowed cluster-dispatch bounds and their test), kbit-verify --quick --pdl over dense
# and MoE, --full --pdl over dense.automatic and dense.tcw at M = 256, 512. (2) A/B of KBIT_TCW_CLUSTER_COST=1:
# tcw_choose_tile prices the plans that run cluster slices (2 slices, >= 4 MB of partials) without partials.
# The Python copy of the choice (tcw_tile_fit.plan) moves the token tile of 13 catalogue shapes at M = 128..1024,
# e.g. Llama-3-8B q/o_proj at M = 160..256 from 256 tokens in 4 slices (14 MB of partials) to 128 in 2 (clusters),
# Qwen3 q_proj at M = 288..512 from 128 tokens to 256 in 2 slices. Predicted: 1.0-1.15x on the moved rows, the
# rest 1.00x. kbit-verify --full --pdl of the arm over dense.tcw and dense.automatic at M = 160, 256, 384, 512,
# then kbit-bench tcw_pdl and automatic_pdl, main / clcost in rotation, two reps, over those shapes at
# M = 160..1024, k = 2..5. Pack first; carry .deps/sys.txz. Env: CC_BUDGET (480 s).
# Lost (0.978x geomean, bench/results/2026-11-28-h100-clcost): the knob is kept on branch exp/tcw-clcost only; run
# this script from a checkout of that branch.
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/clcost" ${CC_BUDGET:-480}
device_build_knob_arms /tmp/cc "clcost=-DKBIT_TCW_CLUSTER_COST=1" || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 90
verify_run verify-quick-pdl 90 3 "main verify --quick --pdl dense,moe" --quick --pdl --kernels dense,moe
verify_run verify-full-pdl 90 3 "main verify --full --pdl dense.automatic,dense.tcw M = 256, 512" --full --pdl \
  --kernels dense.automatic,dense.tcw --filter '/M(256|512)/'
V=(.deps/gpu/kbit-verify-clcost --shapes "$R/data/shapes.json")
verify_run verify-clcost 90 3 "clcost verify --full --pdl dense.tcw,dense.automatic M = 160, 256, 384, 512" --full --pdl \
  --kernels dense.tcw,dense.automatic --filter '/M(160|256|384|512)/'
rows_catalogue qwen3-coder-next.attn.q_proj qwen3-coder-next.attn.k_proj qwen3-coder-next.attn.o_proj \
  qwen3-coder-next.attn.q_proj_gated qwen3-coder-next.linear_attn.out_proj qwen3-coder-next.mlp.dense.gate \
  qwen3-coder-next.mlp.dense.down qwen3-coder-next.mlp.shared_expert.gate_up qwen3-coder-next.mlp.shared_expert.down \
  glm-4.7-flash.attn.o_proj llama-3-8b.attn.q_proj llama-3-8b.attn.k_proj llama-3-8b.attn.o_proj
arm_setup() {
  KERNELS=tcw_pdl,automatic_pdl
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 160,192,256,288,384,512,768,1024 --bits 2,3,4,5 --dtypes f16"
}
MIN_LEFT=20 REPS=2 bench_rotation clcost main clcost
rm -rf /tmp/cc-*/lib /tmp/cc-*/kernels 2>/dev/null; true
