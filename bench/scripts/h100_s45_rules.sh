#!/usr/bin/env bash
# Prepared in the forty-fifth session, NOT RUN (no H100 was lent): the session's four H200-only rules on an H100.
# Build main here and a variant with grouped_tcw's k = 5 64-token kernels back at one CTA per SM (the old arm of the
# first rule; the other rules have environment knobs in main's own binary):
#   variant: recompile kernels/grouped_tcw.cu with -DKBIT_GTCW_MINB64=0x18, replace its member of libkbit_gpu.a and
#   relink kbit-bench as kbit-bench-k5old (bench/scripts/README.md, "A compile-time variant ..."); carry main's
#   kbit-bench, kbit-verify, kbit_tests_kernels and kbit-bench-k5old in one xz tarball.
# The call: the whole GPU doctest binary; then four A/Bs, two reps each in rotation, f16, both models' experts:
#   1. k = 5 at two CTAs per SM and the 64-token tile rule (main) against one CTA per SM and the old rule (k5old with
#      KBIT_GTCW_MN64=0): grouped_tcw and automatic at M = 256..2048;
#   2. grouped_tcv's items and k = 2 table by the mean rows (main) against the hint (KBIT_GTCV_NT_HINT=1): M = 8..16;
#   3. grouped_tcv's item-major grid from 40 rows (main) against the 2D grid (KBIT_GTCV_ITEM_MAJOR=0): M = 1..16;
#   4. k = 5's dispatch from 6 mean rows: grouped_tcv and grouped_tcw at M = 64..128 (GLM) and 256..400 (Qwen3).
# Read them with bench/scripts/gtcwmn64_tables.py DIR k5 (arms main, k5 -> here main, k5old: swap the names) and
# bench/scripts/s45_tables.py DIR nt / cross.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/h45 ${BUDGET:-540}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_tcw,automatic
  B="--models glm-4.7-flash,qwen3-coder-next --M 256,512,1024,2048 --bits 5 --dtypes f16"
  [ "$1" = k5old ] && { BIN=.deps/gpu/kbit-bench-k5old; ENV="KBIT_GTCW_MN64=0"; }
}
REPS=2 MIN_LEFT=300 bench_rotation h45k5 main k5old
arm_setup() {
  KERNELS=grouped_tcv,automatic_pdl
  B="--models glm-4.7-flash,qwen3-coder-next --M 8,12,16 --bits 2,4 --dtypes f16"
  [ "$1" = hint ] && ENV="KBIT_GTCV_NT_HINT=1"
}
REPS=2 MIN_LEFT=200 bench_rotation h45nt mean hint
arm_setup() {
  KERNELS=grouped_tcv,automatic_pdl
  B="--models glm-4.7-flash,qwen3-coder-next --M 1,2,4,8,12,16 --bits 2,4 --dtypes f16"
  [ "$1" = xy ] && ENV="KBIT_GTCV_ITEM_MAJOR=0"
}
REPS=2 MIN_LEFT=80 bench_rotation h45im rule xy
arm_setup() {
  KERNELS=grouped_tcv,grouped_tcw,automatic
  B="--models glm-4.7-flash,qwen3-coder-next --M 64,80,96,112,128,256,320,400 --bits 5 --dtypes f16"
}
REPS=2 MIN_LEFT=10 bench_rotation h45x cross
