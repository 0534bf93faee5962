#!/usr/bin/env bash
# Tenth session, first call: the GPU doctests and memcheck over the MoE + grouped_tcw doctests on
# main as left by the ninth session (its moe_linear workspace change had not run on a GPU), then
# the ncu profile of grouped_tcw and its permute pre-pass (h100_ncu_grouped_tcw.sh).
# Repo root on the GPU machine, .deps/gpu: this build's binaries. Logs: $OUT/run.tar.gz, $OUT/ncu.tar.gz.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/profcheck 420
gpu_info
(cd .deps/gpu && timeout 60 ./kbit_tests_kernels > "$W/kernels.txt" 2>&1); s "kernels rc=$? after $((SECONDS - T0)) s"
grep -E "assertions|Status|ERROR" "$W/kernels.txt" | head -10 | tee -a "$W/summary.txt"
(cd .deps/gpu && timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 ./kbit_tests_kernels -tc='*MoE kernels*,*grouped_tcw*' \
  > "$W/memcheck.txt" 2>&1); s "memcheck MoE doctests rc=$? after $((SECONDS - T0)) s"; tail -3 "$W/memcheck.txt" | tee -a "$W/summary.txt"
NCU_SUMMARY_LINES=70 bash bench/scripts/h100_ncu_grouped_tcw.sh > "$W/ncu-log.txt" 2>&1
s "ncu rc=$? after $((SECONDS - T0)) s"
