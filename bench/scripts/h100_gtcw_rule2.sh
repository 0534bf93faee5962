#!/usr/bin/env bash
# grouped_tcw as landed in the tenth session (item-major grid, per-item wgmma widths, the tile rule
# re-measured with the widths) against the item-major build before the widths, one call: GPU
# doctests, memcheck and racecheck over the MoE + grouped_tcw doctests, kbit-verify --quick on
# grouped_tcw + automatic (MoE), kbit-bench A/B/A/B on the MoE shapes at M = 512..4096, k = 2..4.
# Binaries in .deps/gpu: this build's; kbit-bench-order (item-major grid, no widths).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwrule2 480
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
B=${BENCH:---models qwen3-coder-next glm-4.7-flash --M 512,1024,2048,4096 --bits 2,3,4 --dtypes f16}
arm_setup() { KERNELS=grouped_tcw,automatic; [ "$1" = order ] && BIN=.deps/gpu/kbit-bench-order; }
R0=$R; R=$W/moe
REPS=2 MIN_LEFT=20 bench_rotation gtcwrule2 order rule
R=$R0
