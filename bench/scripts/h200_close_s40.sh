#!/usr/bin/env bash
# Fortieth session, closing call on the H200. No build: carries kbit_tests_kernels, kbit-verify and kbit-bench built
# here for sm_90a at REC_TAG and stripped, in .deps/gpu.
#   1. The k = 5 MoE rule widened to the short rows (grouped_gemv at 17..20 routed rows on rows of K <= 512 too: Qwen3
#      experts.down at M = 2): the MoE dispatch doctests; kbit-verify, plain and --pdl, over automatic on the moved
#      case (f16, bf16); kbit-bench grouped_gemv_pdl, grouped_tcv_pdl and automatic_pdl on the MoE projections at
#      M = 2, k = 5, three reps.
#   2. main on the H200 as a whole (the first such check on this GPU): every GPU doctest of kbit_tests_kernels;
#      kbit-verify --quick over every dense and MoE kernel, launched plainly (the record call ran --pdl over automatic
#      and the MoE kernels); compute-sanitizer memcheck over the gemv, split-K, PDL and MoE doctests and racecheck
#      over the MoE kernels' doctest, without cuBLAS.
# Move bench/results out for the call. Env: BUDGET (default 420 s), REC_TAG.
set -u
source bench/scripts/lib/device_run.sh
device_run_init "$OUT/close" ${BUDGET:-420}
gpu_info
doctest_filter '*MoE dispatch*' 60 'MoE dispatch doctests'
cp "$W/kernels.txt" "$W/kernels-moe-dispatch.txt"
verify_cases verify-moved 60 moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T2/k5
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_gemv_pdl,grouped_tcv_pdl,automatic_pdl
  B="--models qwen3-coder-next,glm-4.7-flash --M 2 --bits 5 --dtypes f16"
}
RUN_MAX_S=40 REPS=3 MIN_LEFT=10 bench_rotation "${REC_TAG:-main}" k5short
gpu_doctest kernels kbit_tests_kernels 120
verify_run verify 100 6 "verify --quick dense,moe" --quick --kernels dense,moe
doctest_sanitize memcheck '*gemv*,*split-K*,*LinearArgs::pdl*,*MoeArgs::pdl*,*MoE kernels*' 90
doctest_sanitize racecheck '*MoE kernels*' 60
