#!/usr/bin/env bash
# Thirtieth session: tcw's whole-tile runs on the stream-K kernel as the default (tcw_partition's
# `whole`, lib/kbit/tcw_sched.h; tcw_whole_runs in kernels/tcw.cu: from 128-token tiles, k >= 4, K >= 2048;
# screened in h100_tcwwhole.sh at every k). One call: old (main before, .deps/old-src.txz) and new built
# side by side; on new, the GPU doctests of the stream-K and whole-tile plans (exact mode, forced), PDL,
# the chain and occupancy; memcheck, racecheck and synccheck over the whole-tile doctests; kbit-verify
# --full over dense.tcw and dense.automatic at M = 512, 1024; memcheck and racecheck over GLM
# shared_experts.gate_up at M = 1024, k = 4, 5 (whole runs there). Then kbit-bench old / new in rotation,
# 2 reps: tcw over dense at M = 512, 768, 1024, k = 3 (unchanged: the control), 4 and 5.
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz and
# .deps/old-src.txz. Env: WL_BUDGET (580 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/wholeland" ${WL_BUDGET:-580}
device_build_ab /tmp/wl-old /tmp/wl-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter "*stream-K*,*whole-tile*,*LinearArgs::pdl*,*chain of linear*,*holds no more*" 150 \
  "stream-K, whole-tile, PDL, chain, occupancy"
for tool in memcheck racecheck synccheck; do
  [ "$(left)" -gt 330 ] || { s "$tool skipped: $(left) s left"; continue; }
  doctest_sanitize $tool "*whole-tile*" 60
done
verify_run verify-full 90 3 "verify --full dense.tcw, dense.automatic M = 512, 1024" --full \
  --kernels dense.tcw,dense.automatic --filter '/M(512|1024)/'
verify_sanitize whole 300 60 'glm-4.7-flash.mlp.shared_experts.gate_up/.*/M1024/k[45]/' memcheck racecheck
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 512,768,1024 --bits 3,4,5 --dtypes f16"
}
MIN_LEFT=20 REPS=2 bench_rotation whole old new
