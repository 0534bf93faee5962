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
: > "$W/verify-moved.txt"; vrc=0; n=0
for dt in f16 bf16; do
  for p in "" --pdl; do
    n=$((n + 1))
    timeout 60 "${V[@]}" $p --case "moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T2/k5/$dt/automatic" \
      >> "$W/verify-moved.txt" 2>&1 || vrc=1
  done
done
s "verify automatic on $n runs of the moved case rc=$vrc after $((SECONDS - T0)) s: $(grep -c 'PASS$' "$W/verify-moved.txt") PASS lines"
moe_catalogue "$W/moe"
for rep in 1 2 3; do
  timeout -s INT 40 .deps/gpu/kbit-bench --shapes "$SHAPES" --git-commit "${REC_TAG:-main}-k5short" \
    --models qwen3-coder-next,glm-4.7-flash --M 2 --bits 5 --dtypes f16 \
    --kernels grouped_gemv_pdl,grouped_tcv_pdl,automatic_pdl --json "$W/bench-$rep-k5short.json" > "$W/bench-$rep-k5short.txt" 2>&1
  s "bench $rep rc=$? after $((SECONDS - T0)) s"
done
gpu_doctest kernels kbit_tests_kernels 120
verify_run verify 100 6 "verify --quick dense,moe" --quick --kernels dense,moe
doctest_sanitize memcheck '*gemv*,*split-K*,*LinearArgs::pdl*,*MoeArgs::pdl*,*MoE kernels*' 90
doctest_sanitize racecheck '*MoE kernels*' 60
