#!/usr/bin/env bash
# tcw_permute_kernel (the activation pre-pass of tcw and grouped_tcw) reading A with one 16-byte load
# per thread through shared memory, against main before it, one call: GPU doctests; memcheck over the
# MoE + grouped_tcw, dense exact-mode and stream-K doctests; racecheck over the MoE + grouped_tcw and
# stream-K doctests (the pre-pass now uses shared memory); kbit-verify --quick on tcw, grouped_tcw and
# automatic; kbit-bench A/B/A/B: grouped_tcw on the MoE shapes at M = 512..4096, k = 2..4, then tcw
# on the shapes of Llama-3-8B, Qwen3-Coder-Next and GLM-4.7-Flash at M = 256, 1024, k = 4.
# Binaries in .deps/gpu: this build's; kbit-bench-head (main before the change).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/permute ${PERM_BUDGET:-570}
gpu_info
(cd .deps/gpu && timeout 60 ./kbit_tests_kernels > "$W/kernels.txt" 2>&1); s "kernels rc=$? after $((SECONDS - T0)) s"
grep -E "assertions|Status|ERROR" "$W/kernels.txt" | head -10 | tee -a "$W/summary.txt"
(cd .deps/gpu && timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 ./kbit_tests_kernels \
  -tc='*MoE kernels*,*grouped_tcw*,*dense kernels equal*,*stream-K*' > "$W/memcheck.txt" 2>&1); s "memcheck rc=$? after $((SECONDS - T0)) s"
tail -3 "$W/memcheck.txt" | tee -a "$W/summary.txt"
(cd .deps/gpu && timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 ./kbit_tests_kernels \
  -tc='*MoE kernels*,*grouped_tcw*,*stream-K*' > "$W/racecheck.txt" 2>&1); s "racecheck rc=$? after $((SECONDS - T0)) s"
tail -3 "$W/racecheck.txt" | tee -a "$W/summary.txt"
timeout 90 "${V[@]}" --quick --kernels tcw,grouped_tcw,automatic > "$W/verify.txt" 2>&1
s "verify --quick tcw,grouped_tcw,automatic rc=$? after $((SECONDS - T0)) s"; tail -8 "$W/verify.txt" | tee -a "$W/summary.txt"
moe_catalogue $W/moe
B="--models qwen3-coder-next glm-4.7-flash --M 512,1024,2048,4096 --bits 2,3,4 --dtypes f16"
arm_setup() { KERNELS=grouped_tcw; [ "$1" = head ] && BIN=.deps/gpu/kbit-bench-head; }
REPS=2 MIN_LEFT=20 BUDGET=$((BUDGET - 220)) bench_rotation permute-moe head perm
SHAPES=$R/data/shapes.json
B="--models llama-3-8b qwen3-coder-next glm-4.7-flash --M 256,1024 --bits 4 --dtypes f16"
for f in "$W"/bench-*.json "$W"/bench-*.txt; do mv "$f" "${f%/*}/moe-${f##*/}"; done
arm_setup() { KERNELS=tcw; [ "$1" = head ] && BIN=.deps/gpu/kbit-bench-head; }
REPS=2 MIN_LEFT=15 bench_rotation permute-dense head perm
for f in "$W"/bench-*.json "$W"/bench-*.txt; do mv "$f" "${f%/*}/dense-${f##*/}"; done
