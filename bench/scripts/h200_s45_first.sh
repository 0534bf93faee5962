#!/usr/bin/env bash
# Forty-fifth session, first call (main f94224f, built here, carried as one xz tarball of five binaries):
#   1. the whole GPU doctest binary on main -- first GPU run of the review fix of grouped_tcw_mn64 (k >= 3 only) and of
#      the closing mend 15cdc6a (grouped_tcw_resident through the launch chain; shared MoE test setup);
#      memcheck over the forced-tile doctest and the MoE exact doctest;
#   2. the k = 5 experiment the forty-fourth session prepared (its script, h200_gtcw_k5.sh, folded in here and removed):
#      grouped_tcw's 64-token kernels at two CTAs per SM for k = 5 (variant built with -DKBIT_GTCW_MINB64=0x38:
#      grouped_tcw.cu recompiled, libkbit_gpu.a's member replaced, kbit-bench / kbit-verify relinked).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s45 ${BUDGET:-500}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
doctest_sanitize memcheck '*every token tile*,*MoE kernels equal the CPU reference*' 150
V=(.deps/gpu/kbit-verify-k5 --shapes "$R/data/shapes.json")
verify_run verify-m 90 4 "verify (k5 variant) --m 128,512,1024,2048 grouped_tcw,automatic" --m 128,512,1024,2048 \
  --kernels moe.grouped_tcw,moe.automatic --filter /k5/
G=moe/glm-4.7-flash.mlp.experts
VKERNELS="grouped_tcw automatic" verify_cases verify-named 60 $G.gate_up/E64.N3072.K2048.top4.realistic/T1024/k5 \
  $G.down/E64.N2048.K1536.top4.realistic/T1024/k5 moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T2048/k5
sanitize_cases k5 90 memcheck $G.down/E64.N2048.K1536.top4.realistic/T512/k5/f16/grouped_tcw
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_tcw,automatic
  B="--models glm-4.7-flash,qwen3-coder-next --M 256,512,1024,2048 --bits 5 --dtypes f16"
  [ "$1" = k5 ] && BIN=.deps/gpu/kbit-bench-k5
}
REPS=2 MIN_LEFT=10 bench_rotation gk5 main k5
