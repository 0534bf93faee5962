#!/usr/bin/env bash
# grouped_tcw with the DEEP step pipeline (no wgmma drain per step; 128/256-row tiles, k >= 4)
# against the build without it, one short call: GPU doctests, memcheck and racecheck over the MoE +
# grouped_tcw doctests (the stage reuse changed), kbit-verify --quick on grouped_tcw + automatic
# (MoE), kbit-bench A/B/A/B at k = 4, M = 1024..4096 on the MoE shapes.
# Binaries in .deps/gpu: this build's; kbit-bench-land (the landed build without DEEP).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwdeep 270
gpu_info
(cd .deps/gpu && timeout 40 ./kbit_tests_kernels > "$W/kernels.txt" 2>&1); s "kernels rc=$? after $((SECONDS - T0)) s"
grep -E "assertions|Status|ERROR" "$W/kernels.txt" | head -10 | tee -a "$W/summary.txt"
for tool in memcheck racecheck; do
  (cd .deps/gpu && timeout 75 compute-sanitizer --tool $tool --error-exitcode 9 ./kbit_tests_kernels -tc='*MoE kernels*,*grouped_tcw*' \
    > "$W/$tool.txt" 2>&1); s "$tool MoE doctests rc=$? after $((SECONDS - T0)) s"; tail -3 "$W/$tool.txt" | tee -a "$W/summary.txt"
done
timeout 45 "${V[@]}" --quick --kernels grouped_tcw,automatic --filter '^moe/' > $W/verify.txt 2>&1
s "verify --quick moe grouped_tcw,automatic rc=$? after $((SECONDS - T0)) s"; tail -5 $W/verify.txt | tee -a $W/summary.txt
moe_catalogue $W/moe
B="--models qwen3-coder-next glm-4.7-flash --M 1024,2048,4096 --bits 4 --dtypes f16"
arm_setup() { KERNELS=grouped_tcw,automatic; [ "$1" = land ] && BIN=.deps/gpu/kbit-bench-land; }
R0=$R; R=$W/moe
REPS=2 MIN_LEFT=25 bench_rotation gtcwdeep land deep
R=$R0
