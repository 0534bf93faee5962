#!/usr/bin/env bash
# grouped_tcw's largest token tiles (128 from 65 mean rows, 256 from 161), one short device call:
# GPU doctests, memcheck and racecheck over the MoE doctests, kbit-verify --quick grouped_tcw (MoE),
# then kbit-bench grouped_tcw / automatic on the MoE shapes at M = 2048 and 4096, k = 2..4 (compared
# with bench/results/2026-11-25-h100-groupedtcw/final, where those rows ran tiles 64 and 128).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwtiles 300
pdl_doctest_checks 100 60 90 '*MoE kernels*'
timeout 60 "${V[@]}" --quick --kernels grouped_tcw --filter '^moe/' --json $W/verify.json > $W/verify.txt 2>&1
s "verify --quick moe grouped_tcw rc=$? after $((SECONDS - T0)) s"; tail -1 $W/verify.txt | tee -a $W/summary.txt
moe_catalogue $W/moe
B=${BENCH:---models qwen3-coder-next glm-4.7-flash --M 2048,4096 --bits 2,3,4 --dtypes f16}
arm_setup() { KERNELS=grouped_tcw,automatic; }
REPS=1 MIN_LEFT=20 bench_rotation gtcwtiles tiles
