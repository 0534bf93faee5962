#!/usr/bin/env bash
# gemv at M = 1 with the activations loaded with the weights of each k-tile (kernels/gemv.cu,
# kPrefetchA), against main's build, one call, both built on the GPU machine (lib/device_build.sh;
# pack first with OLD=<main> bench/scripts/pack_device_build.sh): the GPU doctests,
# compute-sanitizer memcheck over the gemv, split-K, PDL and MoE doctests and racecheck over the
# gemv and MoE equality doctests, kbit-verify --quick over gemv and grouped_gemv, plain and --pdl;
# then kbit-bench, arm old (main's) and new (this build) in rotation: the dense catalogue at M = 1,
# k = 2..5 (gemv, automatic_pdl) and the MoE projections at M = 1, 2 (grouped_gemv, automatic_pdl);
# then ncu source counters of grouped_gemv on Qwen3-Coder-Next experts.down (M = 1, k = 4) with
# what is left. Env: PA_BUDGET (default 560 s), PA_REPS (default 2).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/prefetcha ${PA_BUDGET:-560}
device_build_ab /tmp/paold /tmp/panew kbit-bench kbit-verify kbit_tests_kernels || exit 1
doctest_checks 120 '*gemv*,*split-K*,*pdl*,*MoE kernels equal*,*MoeArgs::pdl*' 120 '*gemv*,*MoE kernels equal*' 90
verify_run verify 90 6 "verify --quick gemv,grouped_gemv" --quick --kernels gemv,grouped_gemv
verify_run verify-pdl 60 6 "verify --quick --pdl gemv,grouped_gemv" --quick --pdl --kernels gemv,grouped_gemv
MIN_LEFT=30 REPS=${PA_REPS:-2} dense_moe_ab prefetcha "--M 1 --bits 2,3,4,5 --dtypes f16" gemv,automatic_pdl \
  "--M 1,2 --bits 2,3,4,5 --dtypes f16" grouped_gemv,automatic_pdl
if [ "$(left)" -gt 30 ]; then
  OUT=$W NCU_KERNELS='grouped_gemv_kernel' NCU_EXTRA_SECTIONS=SourceCounters NCU_SOURCE_PAGE=1 timeout $(( $(left) - 5 )) \
    bash bench/scripts/h100_ncu_profile.sh "moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T1/k4/f16/grouped_gemv" \
    > "$W/ncu.log" 2>&1
  s "ncu grouped_gemv rc=$? after $((SECONDS - T0)) s"
fi
