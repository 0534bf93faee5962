#!/usr/bin/env bash
# Prepared in the twenty-second session and run in the twenty-third (bench/results/2026-11-27-h100-checks23): the closing checks and record
# of main after tcv's adjacent-pair table (bench/results/2026-11-27-h100-tcvadj), whose session ran
# only the tcv/MoE doctests and memcheck on the landed tree. One call, this tree built on the GPU
# machine (main_checks: the format and kernel GPU doctests, memcheck over the gemv, split-K, PDL and
# MoE doctests, racecheck over the MoE and tcv doctests, kbit-verify --quick over every dense and
# MoE kernel and with --pdl), then kbit-bench automatic and automatic_pdl over Qwen3-Coder-Next,
# GLM-4.7-Flash and Llama-3-8B at M = 1, 2, 4, 8, k = 2..5 (the block TOTAL rows), one run.
# Pack first with bash bench/scripts/pack_device_build.sh. Env: S23_BUDGET (default 585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/s23first ${S23_BUDGET:-585}
main_checks s23build '*MoE kernels*,*grouped_tcv*,*tcv*' || exit 1
arm_setup() { B="--M 1,2,4,8 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-8b"; }
REPS=1 MIN_LEFT=20 bench_rotation s23-record all
