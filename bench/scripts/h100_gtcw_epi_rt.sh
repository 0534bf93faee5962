#!/usr/bin/env bash
# grouped_tcw's epilogue (one output pointer per lane, constant offsets) and, on top of it, several
# 128-row tiles per CTA (the prologue paid once for them; KBIT_GTCW_RT in this experiment build)
# against main with the copies change, one call. Checks: the rt build's GPU doctests at 1, 2 and 3
# row tiles per CTA, memcheck and racecheck over the MoE + grouped_tcw doctests at 2, quick verify
# at 2; the epi build's doctests, memcheck and quick verify. Then kbit-bench grouped_tcw A/B/C x 2
# on the MoE shapes at M = 512..4096, k = 2..4 (BENCH overrides the sweep flags).
# Binaries in .deps/gpu: the rt build (kbit-bench, kbit-verify, kbit_tests_kernels), the epi build
# (*-epi) and main with the copies change (kbit-bench-copies).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwepirt ${GTCW_BUDGET:-560}
gpu_info
for rt in 1 2 3; do
  (cd .deps/gpu && KBIT_GTCW_RT=$rt timeout 60 ./kbit_tests_kernels > "$W/kernels-rt$rt.txt" 2>&1); s "rt build doctests RT=$rt rc=$? after $((SECONDS - T0)) s"
  grep -E "assertions|ERROR" "$W/kernels-rt$rt.txt" | head -5 | tee -a "$W/summary.txt"
done
for tool in memcheck racecheck; do
  (cd .deps/gpu && KBIT_GTCW_RT=2 timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 ./kbit_tests_kernels \
    -tc='*MoE kernels*,*grouped_tcw*' > "$W/$tool-rt2.txt" 2>&1); s "rt build $tool MoE doctests RT=2 rc=$? after $((SECONDS - T0)) s"
  tail -2 "$W/$tool-rt2.txt" | tee -a "$W/summary.txt"
done
KBIT_GTCW_RT=2 timeout 60 "${V[@]}" --quick --kernels grouped_tcw,automatic --filter '^moe/' > "$W/verify-rt2.txt" 2>&1
s "rt build verify --quick RT=2 rc=$? after $((SECONDS - T0)) s"; tail -1 "$W/verify-rt2.txt" | tee -a "$W/summary.txt"
(cd .deps/gpu && timeout 60 ./kbit_tests_kernels-epi > "$W/kernels-epi.txt" 2>&1); s "epi doctests rc=$? after $((SECONDS - T0)) s"
grep -E "assertions|ERROR" "$W/kernels-epi.txt" | head -5 | tee -a "$W/summary.txt"
(cd .deps/gpu && timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 ./kbit_tests_kernels-epi \
  -tc='*MoE kernels*,*grouped_tcw*' > "$W/memcheck-epi.txt" 2>&1); s "epi memcheck MoE doctests rc=$? after $((SECONDS - T0)) s"
tail -2 "$W/memcheck-epi.txt" | tee -a "$W/summary.txt"
timeout 60 .deps/gpu/kbit-verify-epi --shapes "$R/data/shapes.json" --quick --kernels grouped_tcw,automatic --filter '^moe/' > "$W/verify-epi.txt" 2>&1
s "epi verify --quick rc=$? after $((SECONDS - T0)) s"; tail -1 "$W/verify-epi.txt" | tee -a "$W/summary.txt"
moe_catalogue $W/moe
B=${BENCH:---models qwen3-coder-next glm-4.7-flash --M 512,1024,2048,4096 --bits 2,3,4 --dtypes f16}
arm_setup() {
  KERNELS=grouped_tcw
  case $1 in copies) BIN=.deps/gpu/kbit-bench-copies ;; epi) BIN=.deps/gpu/kbit-bench-epi ;; rt2) ENV=KBIT_GTCW_RT=2 ;; esac
}
REPS=2 MIN_LEFT=20 bench_rotation gtcwepirt copies epi rt2
