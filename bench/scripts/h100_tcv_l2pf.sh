#!/usr/bin/env bash
# Second call on tcv_tile's step loop (the first, bench/results/2026-11-27-h100-tcvlean/first: the
# lean loop -- unpredicated activation loads, 32-bit step bounds, 5-16% fewer instructions per step --
# lost 0.87-0.95x on grouped_tcv; in its SASS ptxas had sunk the register prefetch of the next
# step's weights from mid-loop to the last mma, e.g. grouped k = 4 from 128 to 13 instructions
# before the loop's end). Here both forms also hint the weights of step + 2 kw into L2
# (prefetch.global.L2 of the lane's two blocks and absmax bytes, CCTL.E.PF2), which covers DRAM
# latency wherever ptxas puts the register loads. Arms: old (main, .deps/old-src.txz), new (this
# tree: lean + L2 prefetch; grouped k = 4 256 instructions per step, register prefetch 153 before
# the end), oldpf (this tree with -DKBIT_TCV_LEAN=0: main's loop + L2 prefetch). Checks on new: the
# tcv/MoE doctests, memcheck, kbit-verify --quick (time-limited). Then kbit-bench in rotation
# (automatic_pdl, tcv_pdl, grouped_tcv) over Qwen3-Coder-Next, GLM-4.7-Flash and Llama-3-70B at
# M = 1, 2, 4, 8, k = 2..5. Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh.
# The tree it ran on: main b01606b + the lean loop and the hints behind the knobs KBIT_TCV_LEAN and
# KBIT_TCV_L2PF (default 1), not committed; the landed form is 4560028 (README of the record).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvl2pf ${PF_BUDGET:-585}
device_sys
CUDA_FLAGS=-DKBIT_TCV_LEAN=0 device_build . /tmp/pfoldpf 6 kbit-bench & pf_pid=$!
device_build_ab /tmp/pfold /tmp/pfnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
wait $pf_pid; s "oldpf build rc=$? after $((SECONDS - T0)) s"
cp /tmp/pfoldpf/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-oldpf
gpu_info
doctest_filter '*tcv*,*MoE*,*grouped*,*one-hot*,*exact*' 120 'tcv, MoE, grouped, one-hot, exact'
doctest_sanitize memcheck '*tcv*,*MoE kernels equal*' 90
verify_run verify 40 4 "verify --quick tcv,grouped_tcv,automatic" --quick --kernels tcv,grouped_tcv,automatic
verify_run verify-pdl 35 4 "verify --quick --pdl tcv,grouped_tcv,automatic" --quick --pdl --kernels tcv,grouped_tcv,automatic
arm_setup() {
  KERNELS=automatic_pdl,tcv_pdl,grouped_tcv
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; oldpf) BIN=.deps/gpu/kbit-bench-oldpf ;; esac
  B="--M 1,2,4,8 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-70b"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation tcvl2pf old new oldpf
