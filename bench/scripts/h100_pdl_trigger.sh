#!/usr/bin/env bash
# PDL trigger placement, one device call (repo root on the GPU machine; binaries in .deps/gpu, the
# main-equivalent kbit-bench as .deps/gpu/kbit-bench-main): gpu.kernels (including the PDL doctests),
# memcheck and racecheck over the PDL doctests, kbit-verify --quick on gemv/tcv/automatic for the
# Qwen3/GLM cases, then kbit-bench rows `automatic` and `automatic_pdl` under
# KBIT_EXP_PDL_TRIGGER = 0 (kernel start), 1 (after the wait), 2 (after the main loop), with main's
# `automatic` between them, twice. Logs land in $OUT/run.tar.gz on any exit.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/pdlrun 540
pdl_doctest_checks 180 90 90
timeout 90 "${V[@]}" --quick --kernels gemv,tcv,automatic --filter "qwen3|glm" > $W/verify.txt 2>&1
s "verify rc=$? after $((SECONDS - T0)) s"; tail -2 $W/verify.txt | tee -a $W/summary.txt
B="--models qwen3-coder-next glm-4.7-flash --M 1 2 4 8 16 --bits 2 4 --dtypes f16"
arm_setup() {
  if [ $1 = main ]; then BIN=.deps/gpu/kbit-bench-main; KERNELS=automatic; else ENV="KBIT_EXP_PDL_TRIGGER=${1#t}"; fi
}
REPS=2 bench_rotation pdl2 main t0 t1 t2
