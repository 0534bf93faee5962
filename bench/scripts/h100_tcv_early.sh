#!/usr/bin/env bash
# (The experiment tree of this call, never committed, read KBIT_TCV_EXP in launch_tcv_t; the landed
# tree has no such knob, so run against it the three new arms bench the same dispatch.)
# First call of tcv's PDL placement on its workspace and unsplit grids, three arms of one build
# against main: the experiment tree's tcv_kernel has the split-K fixup out of line (tcv_fixup, all
# 128 threads, slice_sum) in every arm, and KBIT_TCV_EXP picks the PDL mode of the grids that are
# neither cluster nor one-pass plans: 0 as main (stage and wait first, trigger after the main loop),
# 2 the first step's weights before the stage and its wait, trigger once the wait returns, 3 the same
# loads with the trigger after the main loop. Checks: the split-K, tcv, PDL and automatic doctests
# (the PDL ones under each mode), memcheck over the split-K and PDL chain doctests, racecheck over
# the split-K ones, kbit-verify --quick --pdl over tcv under each mode; then kbit-bench in rotation:
# old (main), new0, new2, new3, tcv_pdl and tcw_pdl (tcw is the same code in all arms: the noise
# floor) over Qwen3-Coder-Next, GLM-4.7-Flash and Llama-3-8B at M = 1, 2, 4, 8, 16, k = 2, 4.
# Pack first with OLD=<main> bash bench/scripts/pack_device_build.sh. Env: TE_BUDGET (default 570 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvearly ${TE_BUDGET:-570}
device_build_ab /tmp/teold /tmp/tenew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*split-K*,*tcv*,*LinearArgs::pdl*,*chain of linear*,*automatic*' 120 'split-K, tcv, pdl, automatic'
for m in 2 3; do
  (cd .deps/gpu && KBIT_TCV_EXP=$m timeout 60 ./kbit_tests_kernels -tc='*LinearArgs::pdl*,*chain of linear*' \
    > "$W/kernels-pdl-$m.txt" 2>&1)
  s "kernels pdl KBIT_TCV_EXP=$m rc=$? after $((SECONDS - T0)) s"
  grep -E 'assertions|Status' "$W/kernels-pdl-$m.txt" | tee -a "$W/summary.txt"
done
doctest_sanitize memcheck '*split-K*,*chain of linear*' 60
(cd .deps/gpu && KBIT_TCV_EXP=2 KBIT_TEST_NO_CUBLAS=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 \
  ./kbit_tests_kernels -tc='*LinearArgs::pdl*' > "$W/memcheck-pdl2.txt" 2>&1)
s "memcheck KBIT_TCV_EXP=2 pdl rc=$? after $((SECONDS - T0)) s"; tail -3 "$W/memcheck-pdl2.txt" | tee -a "$W/summary.txt"
doctest_sanitize racecheck '*split-K*' 60
verify_run verify 40 4 "verify --quick dense tcv" --quick --kernels dense.tcv
for m in 0 2 3; do
  VENV="KBIT_TCV_EXP=$m" verify_run verify-pdl-$m 40 4 "verify --quick --pdl dense tcv KBIT_TCV_EXP=$m" --quick --pdl \
    --kernels dense.tcv
done
arm_setup() {
  case $1 in
    old) BIN=.deps/gpu/kbit-bench-old ;;
    new*) ENV="KBIT_TCV_EXP=${1#new}" ;;
  esac
  B="--M 1,2,4,8,16 --bits 2,4 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-8b"
  KERNELS=tcv_pdl,tcw_pdl
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation tcvearly old new0 new2 new3
