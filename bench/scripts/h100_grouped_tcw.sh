#!/usr/bin/env bash
# grouped_tcw (the MoE wgmma kernel), one device call; repo root on the GPU machine, .deps/gpu: this
# build's binaries. Every GPU doctest, memcheck and racecheck over the MoE doctests, kbit-verify
# --quick on grouped_tcw and automatic (MoE), then kbit-bench on the MoE shapes only (a filtered
# copy of the catalogue) with the grouped kernels side by side, per arm of KBIT_EXP_GTCW_MN (the
# token tile, 32 or 64; an experiment switch). Logs land in $OUT/run.tar.gz on any exit.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcw 540
pdl_doctest_checks 100 120 200 '*MoE kernels*,*grouped_tcw*,*MoeArgs::pdl*'
timeout 100 "${V[@]}" --quick --kernels grouped_tcw,automatic --filter '^moe/' \
  --json $W/verify.json > $W/verify.txt 2>&1
s "verify --quick moe grouped_tcw,automatic rc=$? after $((SECONDS - T0)) s"; tail -6 $W/verify.txt | tee -a $W/summary.txt
moe_catalogue $W/moe
B=${BENCH:---models qwen3-coder-next glm-4.7-flash --M 32,64,128,256,512,1024,2048,4096 --bits 2,3,4 --dtypes f16}
arm_setup() { KERNELS=grouped_tcv,grouped_mma,grouped_tcw,automatic; ENV="KBIT_EXP_GTCW_MN=${1#mn}"; }
REPS=${REPS:-1} MIN_LEFT=20 bench_rotation gtcw mn32 mn64
