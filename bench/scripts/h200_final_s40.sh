#!/usr/bin/env bash
# Fortieth session, last call, on the H200. No build: carries kbit_tests_kernels, kbit-verify and kbit-bench built here
# for sm_90a at REC_TAG and stripped, in .deps/gpu.
#   1. The MoE rule landed from exp/moe-k5-20rows (grouped_gemv at k = 5 at 17..20 routed rows on rows of K >= 2048):
#      the MoE dispatch and automatic doctests; kbit-verify, plain and --pdl, over automatic on the two moved cases
#      (Qwen3 experts.gate_up at M = 2, GLM experts.gate_up at M = 5; k = 5, f16 and bf16); compute-sanitizer memcheck
#      over the MoE kernel doctests; kbit-bench grouped_gemv_pdl, grouped_tcv_pdl and automatic_pdl on the MoE
#      projections at M = 2, 5, 6, k = 5, three reps.
#   2. ncu on the H200 (bench/scripts/h100_pipe_util.sh; one verified launch each, clocks left alone): gemv and tcv at
#      M = 1, k = 4 on Llama-3-70B gate_up -- the record's M = 1 times are the H100's to 1% while the H200 reads 1.44x
#      faster, so what bounds them? -- then grouped_tcv at k = 4 on Qwen3 experts.down at M = 1 and 8, experts.gate_up
#      at M = 8 and GLM experts.down at M = 8 (the MoE decode rows that are furthest from 3x).
# Move bench/results out for the call. Env: BUDGET (default 500 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init "$OUT/fin" ${BUDGET:-500}
gpu_info
doctest_filter '*MoE dispatch*,*automatic*' 90 'MoE dispatch and automatic doctests'
verify_cases verify 60 moe/qwen3-coder-next.mlp.experts.gate_up/E512.N1024.K2048.top10.realistic/T2/k5 \
  moe/glm-4.7-flash.mlp.experts.gate_up/E64.N3072.K2048.top4.realistic/T5/k5
doctest_sanitize memcheck '*MoE kernels*,*MoE dispatch*' 150
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_gemv_pdl,grouped_tcv_pdl,automatic_pdl
  B="--models qwen3-coder-next,glm-4.7-flash --M 2,5,6 --bits 5 --dtypes f16"
}
RUN_MAX_S=40 REPS=3 MIN_LEFT=10 bench_rotation "${REC_TAG:-main}" moek5
Lg=dense/llama-3-70b.mlp.gate_up/N57344.K8192
Q=moe/qwen3-coder-next.mlp.experts
G=moe/glm-4.7-flash.mlp.experts
mkdir -p "$W/ncu"
CASES="$Lg/M1/k4/f16/gemv $Lg/M1/k4/f16/tcv \
$Q.down/E512.N2048.K512.top10.realistic/T8/k4/f16/grouped_tcv \
$Q.down/E512.N2048.K512.top10.realistic/T1/k4/f16/grouped_tcv \
$Q.gate_up/E512.N1024.K2048.top10.realistic/T8/k4/f16/grouped_tcv \
$G.down/E64.N2048.K1536.top4.realistic/T8/k4/f16/grouped_tcv" \
  OUT=$W/ncu timeout $(( $(left) > 20 ? $(left) - 10 : 10 )) bash bench/scripts/h100_pipe_util.sh > "$W/ncu.log" 2>&1
s "ncu rc=$? after $((SECONDS - T0)) s"
