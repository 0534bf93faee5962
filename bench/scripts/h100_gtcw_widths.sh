#!/usr/bin/env bash
# grouped_tcw with per-item wgmma widths (an item of <= MN / 2^j rows multiplies MN / 2^j tokens, >= 32)
# against the item-major build without them, one call: GPU doctests, memcheck and racecheck over the
# MoE + grouped_tcw doctests, kbit-verify --quick on grouped_tcw + automatic (MoE), kbit-bench A/B/A/B
# on the MoE shapes at M = 1024..4096, k = 2..4, then the tile rule probed with the tile forced
# (KBIT_GTCW_MN, an experiment build only) to 64, 128 and 256.
# Binaries in .deps/gpu: this build's; kbit-bench-order (item-major, no widths); kbit-bench-mnenv.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwwidths 560
gtcw_checks 60 90 90 memcheck racecheck
moe_catalogue $W/moe
B=${BENCH:---models qwen3-coder-next glm-4.7-flash --M 1024,2048,4096 --bits 2,3,4 --dtypes f16}
arm_setup() {
  KERNELS=grouped_tcw
  case $1 in
    order) BIN=.deps/gpu/kbit-bench-order ;;
    mn*) BIN=.deps/gpu/kbit-bench-mnenv; ENV="KBIT_GTCW_MN=${1#mn}" ;;
  esac
}
BUDGET=$((BUDGET - 170)) REPS=2 MIN_LEFT=20 bench_rotation gtcwwidths order widths
BUDGET=$((BUDGET)) REPS=1 MIN_LEFT=20 bench_rotation gtcwwidths mn64 mn128 mn256
