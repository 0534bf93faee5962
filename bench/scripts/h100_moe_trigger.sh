#!/usr/bin/env bash
# (Experiment, not landed: the new arm moved pdl_launch_dependents() in grouped_gemv_kernel and grouped_tcv_kernel to right after pdl_wait(); main keeps it after the main loop.)
# grouped_gemv and grouped_tcv under MoeArgs::pdl letting the next launch in right after their wait
# (main: after the main loop), against main's build, both built on the GPU machine (pack first with
# OLD=<main> bash bench/scripts/pack_device_build.sh): the MoE GPU doctests, compute-sanitizer memcheck
# over the MoE PDL doctest, kbit-verify --quick --pdl over the MoE kernels; then kbit-bench arms
# oldmoe and newmoe in rotation over the MoE projections at M = 1, 2, 4, 8, 16, k = 2..5
# (automatic_pdl). Env: MT_BUDGET (default 560 s), MT_REPS (default 3).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/moetrigger ${MT_BUDGET:-560}
device_build_ab /tmp/mtold /tmp/mtnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
(cd .deps/gpu && timeout 90 ./kbit_tests_kernels -tc='*MoE*,*MoeArgs::pdl*,*grouped*' > "$W/kernels.txt" 2>&1)
s "kernels (MoE) rc=$? after $((SECONDS - T0)) s"; grep -E 'assertions|Status' "$W/kernels.txt" | tee -a "$W/summary.txt"
doctest_sanitize memcheck '*MoeArgs::pdl*' 75
doctest_sanitize racecheck '*MoeArgs::pdl*' 75
verify_run verify-pdl 60 8 "verify --quick --pdl moe" --quick --pdl --kernels moe
moe_catalogue "$W/moe"
arm_setup() {
  case $1 in old*) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 1,2,4,8,16 --bits 2,3,4,5 --dtypes f16"; KERNELS=automatic_pdl
}
MIN_LEFT=20 REPS=${MT_REPS:-3} bench_rotation moetrigger oldmoe newmoe
