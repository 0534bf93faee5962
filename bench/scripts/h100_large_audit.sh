#!/usr/bin/env bash
# Twenty-sixth session: the dispatch audit at prefill sizes, the first kbit-bench run of M >= 32 since
# 2026-11-25 (tcv's step loops, tcw's plans and the MoE kernels changed since). One run of every
# kernel beside automatic and automatic_pdl: all four catalogue models, M = 32..1024, k = 2..5, f16
# (tcv_pdl, tcw_pdl, mma, dequant_cublas; grouped_tcv_pdl, grouped_tcw_pdl, grouped_mma,
# grouped_gemv_pdl). The markdown report's dispatch audit lists the automatic rows > 5% slower than
# the fastest other verified kernel of the same launch mode. Recorded: bench/results/2026-11-27-h100-laudit.
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: LA_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/laudit ${LA_BUDGET:-560}
device_build_new /tmp/la-build kbit-bench || exit 1
gpu_info
timeout -s INT $(( $(left) - 10 )) .deps/gpu/kbit-bench --shapes "$R/data/shapes.json" --git-commit "laudit-$(git rev-parse --short HEAD 2>/dev/null || echo tree)" \
  --M 32 64 128 256 512 1024 --bits 2 3 4 5 --dtypes f16 \
  --kernels automatic,automatic_pdl,tcv_pdl,tcw_pdl,mma,dequant_cublas,grouped_tcv_pdl,grouped_tcw_pdl,grouped_mma,grouped_gemv_pdl \
  --json $W/bench.json --markdown $W/bench.md > $W/bench.txt 2>&1
s "bench rc=$? after $((SECONDS - T0)) s"; grep -E "dispatch audit" $W/bench.txt | tee -a $W/summary.txt
