#!/usr/bin/env bash
# grouped_tcw as landed (the k = 2, 64-row kernels back to one width): GPU doctests, memcheck over the
# MoE + grouped_tcw doctests, kbit-verify --quick on grouped_tcw + automatic (MoE), and the k = 2 rows
# at M = 2048, 4096 against the item-major build (kbit-bench-order), once each.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwland 200
gpu_info
(cd .deps/gpu && timeout 60 ./kbit_tests_kernels > "$W/kernels.txt" 2>&1); s "kernels rc=$? after $((SECONDS - T0)) s"
grep -E "assertions|Status|ERROR" "$W/kernels.txt" | head -10 | tee -a "$W/summary.txt"
(cd .deps/gpu && timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 ./kbit_tests_kernels -tc='*MoE kernels*,*grouped_tcw*' \
  > "$W/memcheck.txt" 2>&1); s "memcheck MoE doctests rc=$? after $((SECONDS - T0)) s"; tail -3 "$W/memcheck.txt" | tee -a "$W/summary.txt"
timeout 60 "${V[@]}" --quick --kernels grouped_tcw,automatic --filter '^moe/' > $W/verify.txt 2>&1
s "verify --quick moe grouped_tcw,automatic rc=$? after $((SECONDS - T0)) s"; tail -5 $W/verify.txt | tee -a $W/summary.txt
moe_catalogue $W/moe
B="--models qwen3-coder-next glm-4.7-flash --M 2048,4096 --bits 2 --dtypes f16"
arm_setup() { KERNELS=grouped_tcw,automatic; [ "$1" = order ] && BIN=.deps/gpu/kbit-bench-order; }
R0=$R; R=$W/moe
REPS=1 MIN_LEFT=15 bench_rotation gtcwland order land
R=$R0
