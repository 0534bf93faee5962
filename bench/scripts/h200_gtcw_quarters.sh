#!/usr/bin/env bash
# grouped_tcw items at three-quarter widths (96 for 65..96 rows, 192 for 129..192; KBIT_GTCW_QUARTERS, branch
# exp/gtcw-quarters, default off there) on the H200, one call: the MoE + grouped_tcw GPU doctests with the knob on
# and off (cases at 96/97 and 192/193 rows added), memcheck and racecheck over them with the knob on, then kbit-bench
# grouped_tcw over the MoE shapes at M = 256..4096, k = 2..5, f16, arms main (main's kbit-bench, carried as
# .deps/gpu/kbit-bench-main), q0 (this build, knob off: the register change alone) and q1 (knob on), two reps in
# rotation. Binaries in .deps/gpu (carried gzipped in .deps/gpuz/bins.tgz): kbit-bench, kbit-bench-main,
# kbit_tests_kernels.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gq ${BUDGET:-520}
gpu_info
F='*MoE kernels*,*grouped_tcw*'
KBIT_GTCW_QUARTERS=1 doctest_filter "$F" 120 "MoE + grouped_tcw, quarters on"
cp "$W/kernels.txt" "$W/kernels-q1.txt"
KBIT_GTCW_QUARTERS=0 doctest_filter "$F" 120 "MoE + grouped_tcw, quarters off"
export KBIT_GTCW_QUARTERS=1
doctest_sanitize memcheck "$F" 120 "quarters on"
doctest_sanitize racecheck "$F" 150 "quarters on"
unset KBIT_GTCW_QUARTERS
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_tcw
  B="--models qwen3-coder-next glm-4.7-flash --M 256,512,1024,2048,4096 --bits 2,3,4,5 --dtypes f16"
  case $1 in
    main) BIN=.deps/gpu/kbit-bench-main ;;
    q0) ENV=KBIT_GTCW_QUARTERS=0 ;;
    q1) ENV=KBIT_GTCW_QUARTERS=1 ;;
  esac
}
REPS=2 MIN_LEFT=20 bench_rotation gq main q0 q1
for a in "main q1" "q0 q1" "main q0"; do
  python3 bench/scripts/ab_moe.py "$W" $a > "$W/ab-${a// /-}.txt" 2>&1
  s "ab $a:"; grep -iE "geomean" "$W/ab-${a// /-}.txt" | head -4 | tee -a "$W/summary.txt"
done
