#!/usr/bin/env bash
# grouped_tcw with an item-major 1D grid (the row tiles of one work item adjacent, so they share its
# activation tiles in L2) against main's (item x row tile, row tile the slower index), one call:
# GPU doctests, memcheck and racecheck over the MoE + grouped_tcw doctests, kbit-verify --quick on
# grouped_tcw + automatic (MoE), kbit-bench A/B/A/B on the MoE shapes at M = 1024..4096, k = 2, 4,
# then ncu of the new kernel at the two cases profiled before (GLM M = 4096, Qwen3 M = 4096, k = 4).
# Binaries in .deps/gpu: this build's, and main's kbit-bench as kbit-bench-main.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcworder 540
gpu_info
(cd .deps/gpu && timeout 60 ./kbit_tests_kernels > "$W/kernels.txt" 2>&1); s "kernels rc=$? after $((SECONDS - T0)) s"
grep -E "assertions|Status|ERROR" "$W/kernels.txt" | head -10 | tee -a "$W/summary.txt"
for tool in memcheck racecheck; do
  (cd .deps/gpu && timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 ./kbit_tests_kernels -tc='*MoE kernels*,*grouped_tcw*' \
    > "$W/$tool.txt" 2>&1); s "$tool MoE doctests rc=$? after $((SECONDS - T0)) s"; tail -3 "$W/$tool.txt" | tee -a "$W/summary.txt"
done
timeout 90 "${V[@]}" --quick --kernels grouped_tcw,automatic --filter '^moe/' > $W/verify.txt 2>&1
s "verify --quick moe grouped_tcw,automatic rc=$? after $((SECONDS - T0)) s"; tail -5 $W/verify.txt | tee -a $W/summary.txt
moe_catalogue $W/moe
B=${BENCH:---models qwen3-coder-next glm-4.7-flash --M 1024,2048,4096 --bits 2,4 --dtypes f16}
arm_setup() { KERNELS=grouped_tcw,automatic; [ "$1" = main ] && BIN=.deps/gpu/kbit-bench-main; }
R0=$R; R=$W/moe
BUDGET=$((BUDGET - 60)) REPS=${REPS:-2} MIN_LEFT=20 bench_rotation gtcworder main order
R=$R0
NCU_SUMMARY_LINES=70 NCU_KERNELS=grouped_tcw_kernel bash bench/scripts/h100_ncu_profile.sh \
  "moe/glm-4.7-flash.mlp.experts.down/E64.N2048.K1536.top4.realistic/T4096/k4/f16/grouped_tcw" \
  "moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T4096/k4/f16/grouped_tcw" > "$W/ncu-log.txt" 2>&1
s "ncu rc=$? after $((SECONDS - T0)) s"
