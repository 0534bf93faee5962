#!/usr/bin/env bash
# choose_kernel under PDL: tcw at M = 3, 4 from 32 M weights only at k = 4 (kernels/api.cu), against
# main's build, both built on the GPU machine (pack first with OLD=<main> bash
# bench/scripts/pack_device_build.sh): the PDL and dispatch GPU doctests, kbit-verify --quick --pdl
# over automatic; then kbit-bench arms old and new in rotation over the catalogue at M = 3, 4, 8,
# k = 2..5 (automatic_pdl). Env: TR_BUDGET (default 480 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcwrule ${TR_BUDGET:-480}
device_build_ab /tmp/trold /tmp/trnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
(cd .deps/gpu && timeout 120 ./kbit_tests_kernels -tc='*pdl*,*PDL*,*automatic*' > "$W/kernels.txt" 2>&1)
s "kernels (PDL, automatic) rc=$? after $((SECONDS - T0)) s"; grep -E 'assertions|Status' "$W/kernels.txt" | tee -a "$W/summary.txt"
verify_run verify-pdl 60 4 "verify --quick --pdl automatic" --quick --pdl --kernels automatic
arm_setup() {
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 3,4,8 --bits 2,3,4,5 --dtypes f16"; KERNELS=automatic_pdl
}
MIN_LEFT=30 REPS=2 bench_rotation tcwrule old new
