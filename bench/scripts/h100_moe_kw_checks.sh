#!/usr/bin/env bash
# Closing checks and record after grouped_tcv's one-wave K split and the PDL rule for tcv's wide
# cluster grids (bench/results/2026-11-27-h100-moekw), one call, this tree built on the GPU machine
# (pack first with bash bench/scripts/pack_device_build.sh): the format and kernel GPU doctests,
# memcheck over the MoE, grouped, split-K and PDL doctests, racecheck over the MoE kernels and the PDL
# chain, kbit-verify --quick over every dense and MoE kernel and with --pdl over gemv, tcv, tcw,
# automatic and the MoE kernels; then kbit-bench automatic and automatic_pdl over Qwen3-Coder-Next,
# GLM-4.7-Flash and Llama-3-8B at M = 1, 2, 4, 8, k = 2..5 (the block TOTAL rows). Env: RC_BUDGET
# (default 585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/moekwchecks ${RC_BUDGET:-585}
device_build_new /tmp/mkcbuild kbit-bench kbit-verify kbit_tests_kernels kbit_tests_gpu || exit 1
doctest_checks 110 '*MoE*,*grouped*,*split-K*,*LinearArgs::pdl*,*chain of linear*' 110 '*MoE kernels*,*chain of linear*' 75
verify_run verify 100 6 "verify --quick dense,moe" --quick --kernels dense,moe
verify_run verify-pdl 70 6 "verify --quick --pdl gemv,tcv,tcw,automatic,moe" --quick --pdl --kernels gemv,tcv,tcw,automatic,moe
arm_setup() { B="--M 1,2,4,8 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-8b"; }
REPS=1 MIN_LEFT=20 bench_rotation moekw-record all
