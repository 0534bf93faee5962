#!/usr/bin/env bash
# tcw_kernel with 32-token tiles requests its first step's weights before the PDL wait (kernels/tcw.cu)
# against main's build, both built on the GPU machine (pack first with OLD=<main> bash
# bench/scripts/pack_device_build.sh): the tcw, PDL and exact-mode GPU doctests, compute-sanitizer
# memcheck over the tcw and PDL doctests, kbit-verify --quick over tcw, plain and --pdl; then kbit-bench
# arms old and new in rotation: M = 4, 8 at k = 2..5 (tcw_pdl, tcw, automatic_pdl), and M = 64, 256 at
# k = 4 (tcw: the larger tiles' SASS moved with the source order, no PDL there). Env: TE_BUDGET (570 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcwearly ${TE_BUDGET:-580}
device_build_ab /tmp/teold /tmp/tenew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest_filtered() { (cd .deps/gpu && timeout 90 ./kbit_tests_kernels -tc='*tcw*,*pdl*,*exact mode*' > "$W/kernels.txt" 2>&1); s "kernels (tcw, pdl, exact) rc=$? after $((SECONDS - T0)) s"; grep -E 'assertions|Status' "$W/kernels.txt" | tee -a "$W/summary.txt"; }
gpu_doctest_filtered
doctest_sanitize memcheck '*tcw*,*LinearArgs::pdl*' 75
verify_run verify 60 4 "verify --quick tcw" --quick --kernels tcw
verify_run verify-pdl 60 4 "verify --quick --pdl tcw" --quick --pdl --kernels tcw
arm_setup() {
  case $1 in old*) BIN=.deps/gpu/kbit-bench-old ;; esac
  case $1 in
    *big) B="--M 64,256 --bits 4 --dtypes f16"; KERNELS=tcw ;;
    *) B="--M 4,8 --bits 2,3,4,5 --dtypes f16"; KERNELS=tcw_pdl,tcw,automatic_pdl ;;
  esac
}
MIN_LEFT=30 REPS=2 bench_rotation tcwearly old new oldbig newbig
