#!/usr/bin/env bash
# Twenty-fifth session: the dispatch audit after the per-kernel step loops (tcv +3.7%, grouped +2%
# since the last all-kernel runs). One kbit-bench run of every kernel beside automatic_pdl (gemv_pdl,
# tcv_pdl, tcw_pdl with PDL as automatic_pdl; grouped_gemv, grouped_tcv, grouped_tcw, which kbit-bench
# launches without MoeArgs::pdl), Qwen3-Coder-Next and GLM-4.7-Flash, M = 1, 2, 3, 4, 8, 16, k = 2..5,
# f16; the markdown report's dispatch audit lists the dense automatic rows > 5% slower than the fastest
# other verified kernel of the same launch mode (the MoE rows have no PDL counterpart there).
# Recorded: bench/results/2026-11-27-h100-daudit/audit. Since then the run also names kbit-bench's opt-in
# grouped_gemv_pdl, grouped_tcv_pdl and grouped_tcw_pdl rows, so the audit covers the MoE rows too, and
# first runs the MoE dispatch doctests (kbit_tests_kernels '*MoE dispatch*'). Recorded:
# bench/results/2026-11-27-h100-daudit2 (twenty-sixth session).
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: DA_BUDGET (420 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/daudit ${DA_BUDGET:-420}
device_sys || exit 1
device_build_new /tmp/da-build kbit-bench kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*MoE dispatch*' 120 'MoE dispatch'
timeout -s INT $(( $(left) - 10 )) .deps/gpu/kbit-bench --shapes "$R/data/shapes.json" --git-commit "audit-$(git rev-parse --short HEAD 2>/dev/null || echo tree)" \
  --models qwen3-coder-next glm-4.7-flash --M 1 2 3 4 8 16 --bits 2 3 4 5 --dtypes f16 \
  --kernels gemv_pdl,tcv_pdl,tcw_pdl,automatic_pdl,grouped_gemv,grouped_tcv,grouped_tcw,grouped_gemv_pdl,grouped_tcv_pdl,grouped_tcw_pdl \
  --json $W/bench.json --markdown $W/bench.md > $W/bench.txt 2>&1
s "bench rc=$? after $((SECONDS - T0)) s"; grep -E "dispatch audit" $W/bench.txt | tee -a $W/summary.txt
