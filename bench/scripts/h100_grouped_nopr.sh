#!/usr/bin/env bash
# Twenty-fifth session: grouped_tcv at k = 3, 4 without its pair table (-DKBIT_GROUPED_TCV_PAIRS=0:
# the register table at k = 3, the shared-memory codebook at k = 4, and grouped_tcv_kw's rule for
# table-less kernels). Why: at short K the 16-32 KB table each CTA stages is paid for few steps.
# Qwen3-Coder-Next experts.down (K = 512, 4 steps) at M = 1 runs grouped_gemv at 5.68 us (2.75x the
# best fp16 alternative; 3x needs 5.2 us) and grouped_tcv on the table at 6.12 us, 640 CTAs of two
# steps per warp, where Qwen3 experts.gate_up (K = 2048) runs the same 640 CTAs of four steps in 8.3 us:
# ~3.9 us of the short-K launch is not its steps.
# Predicted: Qwen3 experts.down at M = 1..4, k = 3, 4 grouped_tcv 1.05-1.2x (table-less), possibly under
# grouped_gemv at M = 1; the K = 1536, 2048 shapes lose (their table pays over 12-16 steps).
# One call: main (this tree) and nopr built side by side; kbit-verify --quick over grouped_tcv and moe
# for nopr; kbit-bench main / nopr in rotation (grouped_tcv, grouped_gemv, automatic_pdl; Qwen3 and GLM;
# M = 1, 2, 4, 8; k = 3, 4; 2 reps).
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: NP_BUDGET (585 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/nopr ${NP_BUDGET:-585}
device_build_knob_arms /tmp/np nopr=-DKBIT_GROUPED_TCV_PAIRS=0 || exit 1
gpu_info
verify_arms 90 grouped_tcv,moe nopr
arm_setup() {
  KERNELS=grouped_tcv,grouped_gemv,automatic_pdl
  case $1 in nopr) BIN=.deps/gpu/kbit-bench-$1 ;; esac
  B="--M 1,2,4,8 --bits 3,4 --dtypes f16 --models qwen3-coder-next glm-4.7-flash"
}
BUDGET=$((BUDGET - 20)) MIN_LEFT=15 REPS=2 bench_rotation nopr main nopr
