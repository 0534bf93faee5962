#!/usr/bin/env bash
# grouped_tcw's k-dependent tile rule as landed: GPU doctests (with the 60 / 124 / 207 mean-row
# cases), memcheck over the MoE doctests, kbit-verify --quick on grouped_tcw and automatic (MoE).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwrule 150
gpu_info
(cd .deps/gpu && timeout 60 ./kbit_tests_kernels > "$W/kernels.txt" 2>&1); s "kernels rc=$? after $((SECONDS - T0)) s"
grep -E "assertions|Status|ERROR" "$W/kernels.txt" | head -10 | tee -a "$W/summary.txt"
(cd .deps/gpu && timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 ./kbit_tests_kernels -tc='*MoE kernels*,*grouped_tcw*' \
  > "$W/memcheck.txt" 2>&1); s "memcheck MoE doctests rc=$? after $((SECONDS - T0)) s"; tail -3 "$W/memcheck.txt" | tee -a "$W/summary.txt"
timeout 60 "${V[@]}" --quick --kernels grouped_tcw,automatic --filter '^moe/' > $W/verify.txt 2>&1
s "verify --quick moe grouped_tcw,automatic rc=$? after $((SECONDS - T0)) s"; tail -5 $W/verify.txt | tee -a $W/summary.txt
