#!/usr/bin/env bash
# grouped_tcw as landed (dispatch: from 8 mean rows per active expert; token tiles 32 / 64 / 128 by
# the mean), one device call; repo root on the GPU machine, .deps/gpu: this build's binaries.
# Every GPU doctest, memcheck and racecheck over the MoE doctests, kbit-verify --quick on the MoE
# kernels (plain and --pdl), then kbit-bench `automatic` / `automatic_pdl` and the grouped kernels
# on the MoE shapes (a filtered copy of the catalogue), M = 1..4096, k = 2..4. Logs land in
# $OUT/run.tar.gz on any exit.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwfinal 540
pdl_doctest_checks 100 120 200 '*MoE kernels*,*grouped_tcw*,*MoeArgs::pdl*,*graph*'
timeout 100 "${V[@]}" --quick --kernels v0,grouped_gemv,grouped_tcv,grouped_mma,grouped_tcw,automatic --filter '^moe/' \
  --json $W/verify.json > $W/verify.txt 2>&1
s "verify --quick moe rc=$? after $((SECONDS - T0)) s"; tail -9 $W/verify.txt | tee -a $W/summary.txt
timeout 60 "${V[@]}" --quick --pdl --kernels grouped_gemv,grouped_tcv,automatic --filter '^moe/' \
  --json $W/verify-pdl.json > $W/verify-pdl.txt 2>&1
s "verify --quick --pdl moe rc=$? after $((SECONDS - T0)) s"; tail -1 $W/verify-pdl.txt | tee -a $W/summary.txt
moe_catalogue $W/moe
B=${BENCH:---models qwen3-coder-next glm-4.7-flash --M 1,16,64,128,256,512,1024,2048,4096 --bits 2,3,4 --dtypes f16}
arm_setup() { KERNELS=grouped_tcw,automatic,automatic_pdl; }
REPS=${REPS:-1} MIN_LEFT=20 bench_rotation gtcwfinal final
