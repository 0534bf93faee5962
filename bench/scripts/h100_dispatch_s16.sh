#!/usr/bin/env bash
# Two dispatch changes read off the record (bench/results/2026-11-26-h100-record-s16), against
# main's build, one call, both built on the GPU machine (lib/device_build.sh; pack first with
# OLD=<main> bench/scripts/pack_device_build.sh): under PDL tcw starts at M = 3 (gemv_pdl won M = 2),
# and at M = 1 the one-pass tcv rule leaves >= 16 M weights at k >= 3 to gemv (Qwen3-Coder-Next
# dense.gate_up). The GPU doctests (the dispatch doctests among them) and compute-sanitizer memcheck
# over the PDL doctests; then kbit-bench automatic and automatic_pdl, arm old (main's) and new in
# rotation, over the whole catalogue at M = 1, 2, 4, k = 2..5. Env: DS_BUDGET (default 540 s),
# DS_REPS (default 2).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/dispatchs16 ${DS_BUDGET:-540}
device_build_ab /tmp/dsold /tmp/dsnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
if gpu_doctest kernels kbit_tests_kernels 100; then
  doctest_sanitize memcheck '*pdl*,*automatic*' 120
fi
grep -E "one-pass|PDL dispatch|ERROR|FAILED" "$W/kernels.txt" | head -10 | tee -a "$W/summary.txt"
arm_setup() {
  B="--M 1,2,4 --bits 2,3,4,5 --dtypes f16"; KERNELS=automatic,automatic_pdl
  [ "$1" = old ] && BIN=.deps/gpu/kbit-bench-old
}
MIN_LEFT=20 REPS=${DS_REPS:-2} bench_rotation dispatch-s16 old new
