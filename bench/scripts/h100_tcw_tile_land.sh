#!/usr/bin/env bash
# Thirty-first session, branch tcw-tile: tcw's token tile chosen by a fitted cost model (tcw_choose_tile,
# lib/kbit/tcw_sched.h) instead of by M alone: from M = 65 up a half or a quarter of the default tile where
# the model puts that plan at <= 92% of the default's. Fitted to bench/results/2026-11-27-h100-mncap (k = 2, 4;
# in-sample 1.065x geomean of tcw over M = 128..1024, no row slower). This call: main (old) and this tree
# (new) built side by side; every kernel GPU doctest; kbit-verify --full over dense.tcw at M = 65, 128,
# 256, 512, 1024 and --quick over dense.automatic; memcheck and racecheck over shapes whose tile moves; then
# kbit-bench tcw old / new over dense at M = 96, 256, 384, 512, 1024, k = 2..5 (k = 3, 5 use the k = 2 and
# k = 4 figures unfitted), one rep each. Pack with OLD=main; carry .deps/sys.txz, .deps/old-src.txz.
# Env: TL_BUDGET (575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/tileland" ${TL_BUDGET:-575}
device_build_ab /tmp/tl-old /tmp/tl-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 90
verify_run verify-tcw 120 3 "verify --full dense.tcw M = 65, 128, 256, 512, 1024" --full --kernels dense.tcw \
  --filter '/M(65|128|256|512|1024)/'
verify_run verify-auto 60 3 "verify --quick dense.automatic" --quick --kernels dense.automatic
verify_sanitize moved 300 60 '(glm-4.7-flash.attn.q_b_proj|qwen3-coder-next.mlp.shared_expert.down)/.*/M(128|256|1024)/' \
  memcheck racecheck
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw
  BIN=.deps/gpu/kbit-bench; [ "$1" = old ] && BIN=.deps/gpu/kbit-bench-old
  B="--M 96,256,384,512,1024 --bits 2,3,4,5 --dtypes f16"
}
MIN_LEFT=20 REPS=1 bench_rotation tileland old new
rm -rf /tmp/tl-old/src /tmp/tl-old/build/kernels 2>/dev/null; true
