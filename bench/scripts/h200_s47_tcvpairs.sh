#!/usr/bin/env bash
# Prepared in the forty-sixth session, not run (no device time left): the dense tcv's pair-table bound on the H200.
# The dense k = 3, 4 tcv decodes by its pair table only from 32 M weights (kTcvPairsMinWeights, kernels/launch.h: the
# H100's fifth session, at M = 1, before the table was staged by vectors and before the early launches). Below it the
# medium shapes (Qwen3 dense.gate_up 21 M, GLM q_b_proj, Llama-3-8B q/o_proj 16.8 M, ...) run the shared-memory codebook
# decode: ncu in -s46a put tcv on Qwen3 dense.gate_up at M = 4 at 7.6 warp instructions per weight, 25% of warp slots.
# KBIT_TCV_PAIRS=1 (environment, kernels/tcv.cu) takes them to the table, one binary for both arms. The knob also moves
# dispatch where it asks tcv_uses_pairs (choose_kernel's M = 1, 2 rules, kernels/api.cu), so read tcv_pdl for the
# kernel and automatic_pdl for what a rule change would give.
# Static count (nvdisasm of tcv.cu at HEAD, bench/scripts/sass_loop_mix.py, f16, k = 4, one n8 tile, 64 weights per
# lane a step): the step loop without the table 5.67-6.31 instructions per weight (LDS 66, PRMT 64, FMUL 64 per step)
# against 4.27-4.34 with it (the kTcvUnsplit and kTcvEarly / workspace kernels). Predicted: 1.05-1.15x at M = 2..16 on
# the 8-32 M shapes if the table's 32 KB staging per CTA costs less than the ~1.4x shorter loop saves (ncu in
# -s46a: 7.6 instructions per weight executed on Qwen3 dense.gate_up at M = 4, the loop ~80% of them); a loss on grids
# of many short CTAs is the risk (the H100 measured 0.96x at M = 1 in the fifth session).
#   1. kbit-verify over tcv at M = 2, 4, 8, 16 with the knob (k = 3, 4: the roundings follow tcv_uses_pairs);
#   2. kbit-bench tcv_pdl and automatic_pdl over the dense catalogue at M = 2, 4, 8, 16, k = 3, 4, f16: rule / pairs in
#      rotation, two reps. Read with bench/scripts/pdl_compare.py DIR rule:tcv_pdl pairs:tcv_pdl.
# Build here (main), carry kbit-bench, kbit-verify, kbit_tests_kernels stripped and xz'd as .deps/gpuz/bins.txz (bench/scripts/README).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s47p ${BUDGET:-400}
gpu_info
# First, main's whole GPU doctest binary (99ee298 had not run on a GPU; its device code is identical to what ran).
gpu_doctest kernels kbit_tests_kernels 120
VENV="KBIT_TCV_PAIRS=1" verify_run verify-pairs 90 6 "verify tcv --m 2,4,8,16, KBIT_TCV_PAIRS=1" --m 2,4,8,16 \
  --kernels dense.tcv
arm_setup() {
  KERNELS=tcv_pdl,automatic_pdl
  B="--M 2,4,8,16 --bits 3,4 --dtypes f16"
  [ "$1" = pairs ] && ENV="KBIT_TCV_PAIRS=1"
}
REPS=2 MIN_LEFT=20 bench_rotation s47p rule pairs
