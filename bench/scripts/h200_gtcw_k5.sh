#!/usr/bin/env bash
# Prepared in the forty-fourth session, NOT RUN (no device time left): grouped_tcw's 64-token kernels at two CTAs per
# SM for k = 5 too. ptxas with -DKBIT_GTCW_MINB64=0x38: 128 registers, 56 bytes spilled (one row tile per CTA) / 20
# (two); tcw's dense k = 5 at two per SM lost with 60-88 bytes (thirty-second session). With bit 5 set,
# grouped_tcw_mn64 is true at k = 5 as well, so the variant's rule gives k = 5 the 64-token tile to 96 mean rows.
# Build the variant here and carry it beside main's binaries (no doctest binary: its rule expectations are main's):
#   cmake -S . -B build-k5 -DCMAKE_BUILD_TYPE=Release -DKBIT_CUDA_ARCHS=90a -DCMAKE_CUDA_FLAGS=-DKBIT_GTCW_MINB64=0x38
#   make -C build-k5 -j2 kbit-bench kbit-verify
#   strip -o .deps/gpu/kbit-bench-k5 build-k5/apps/kbit-bench/kbit-bench (and kbit-verify-k5), with main's kbit-bench
#   and kbit-verify in .deps/gpu; gzip the four into .deps/gpuz/bins.tgz (check it stays under the 64 MiB carry).
# The call: kbit-verify-k5 over grouped_tcw and automatic at M = 128..2048 (k = 5 rows of the sweep) and named k = 5
# cases at 1,024 tokens; memcheck on one; then kbit-bench grouped_tcw and automatic at k = 5 on the Qwen3-Coder-Next
# and GLM-4.7-Flash experts, M = 256..2048, f16: main / variant in rotation, two reps.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gk5 ${BUDGET:-300}
gpu_info
V=(.deps/gpu/kbit-verify-k5 --shapes "$R/data/shapes.json")
verify_run verify-m 120 4 "verify (k5 variant) --m 128,512,1024,2048 grouped_tcw,automatic" --m 128,512,1024,2048 \
  --kernels moe.grouped_tcw,moe.automatic
G=moe/glm-4.7-flash.mlp.experts
VKERNELS="grouped_tcw automatic" verify_cases verify-named 60 $G.gate_up/E64.N3072.K2048.top4.realistic/T1024/k5 \
  $G.down/E64.N2048.K1536.top4.realistic/T1024/k5 moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T2048/k5
sanitize_cases k5 120 memcheck $G.down/E64.N2048.K1536.top4.realistic/T512/k5/f16/grouped_tcw
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_tcw,automatic
  B="--models glm-4.7-flash,qwen3-coder-next --M 256,512,1024,2048 --bits 5 --dtypes f16"
  [ "$1" = k5 ] && BIN=.deps/gpu/kbit-bench-k5
}
REPS=2 MIN_LEFT=10 bench_rotation gk5 main k5
