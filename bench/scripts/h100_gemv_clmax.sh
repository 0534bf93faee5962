#!/usr/bin/env bash
# (Experiment build: the KBIT_GEMV_CLMAX switch was in that tree only.)
# Results: bench/results/2026-11-26-h100-gemvclmax (lost, not landed).
# gemv's PDL cluster grids with fewer K slices per cluster: KBIT_GEMV_CLMAX=4 or 2 caps the slices
# (main: up to 8), one build made on the GPU machine (pack first: bash bench/scripts/pack_device_build.sh).
# kbit-verify --quick --pdl over gemv with each cap; then kbit-bench arms c8 (main's plans), c4, c2 in
# rotation over the six small Qwen3/GLM shapes at M = 1, 2, 4, k = 2..5 (gemv_pdl, automatic_pdl).
# Env: CX_BUDGET (default 330 s), CX_REPS (default 3).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/gemvclmax ${CX_BUDGET:-330}
device_build_new /tmp/cxbuild kbit-bench kbit-verify || exit 1
gpu_info
for c in 4 2; do
  VENV="KBIT_GEMV_CLMAX=$c" verify_run verify-pdl-c$c 50 3 "verify --quick --pdl gemv (cap $c)" --quick --pdl --kernels gemv
done
arm_setup() { ENV="KBIT_GEMV_CLMAX=${1#c}"; KERNELS=gemv_pdl,automatic_pdl; }
B="--M 1,2,4 --bits 2,3,4,5 --dtypes f16"
small_catalogue "$W"
MIN_LEFT=10 REPS=${CX_REPS:-3} bench_rotation gemvclmax c8 c4 c2
