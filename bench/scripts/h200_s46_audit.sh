#!/usr/bin/env bash
# Forty-sixth session, first call (H200; built here, carried): main's whole GPU doctest binary (a89c90c's host-only
# mend had not run on a GPU), then an audit of tcw's plan on the H200 with two run-time knobs (kernels/tcw.cu,
# default off, one binary; KBIT_TCW_SK_MIN has since moved to branch exp/tcw-skmin, its result a null -- build there
# to rerun this script):
#   - KBIT_TCW_SK_MIN=S: stream-K becomes a candidate from a per-tile makespan of S steps (the H100's rule: 32). At
#     16, Qwen3-Coder-Next dense.gate_up at M = 128 (80 tiles of 16 steps on 132 SMs, 52 SMs idle) would run one wave
#     of 132 CTAs of ~10 steps;
#   - KBIT_TCW_MN=T: every plan at token tile T, to check the H100-fitted tile cost model (tcw_choose_tile) here.
#   1. the whole GPU doctest binary; kbit-verify over tcw at M = 96, 128, 256 with KBIT_TCW_SK_MIN=8 (the most stream-K
#      plans), and memcheck on two stream-K cases it creates;
#   2. kbit-bench tcw_pdl over the dense catalogue at M = 96, 128, 192, 256, 384, 512, k = 2 and 4, f16: main / sk16 /
#      sk8 in rotation, two reps; then the forced tiles mn64 / mn128 / mn256, one rep;
#   3. ncu pipes and stalls of tcv (M = 4) and gemv (M = 1) on Qwen3 dense.gate_up, k = 4 (24-28% of read bandwidth in
#      -final-s45).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s46a ${BUDGET:-500}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
VENV="KBIT_TCW_SK_MIN=8" verify_run verify-sk8 100 6 "verify tcw --m 96,128,256, KBIT_TCW_SK_MIN=8" \
  --m 96,128,256 --kernels dense.tcw
Q=dense/qwen3-coder-next.mlp.dense.gate_up/N10240.K2048
export KBIT_TCW_SK_MIN=8
sanitize_cases sk8 90 memcheck $Q/M128/k4/f16/tcw dense/glm-4.7-flash.attn.kv_b_proj/N8960.K512/M256/k2/bf16/tcw
unset KBIT_TCW_SK_MIN
all=$BUDGET; BUDGET=$(( all - 60 ))  # leave 60 s for ncu
arm_setup() {
  KERNELS=tcw_pdl
  B="--M 96,128,192,256,384,512 --bits 2,4 --dtypes f16"
  case $1 in sk*) ENV="KBIT_TCW_SK_MIN=${1#sk}" ;; mn*) ENV="KBIT_TCW_MN=${1#mn}" ;; esac
}
REPS=2 MIN_LEFT=60 bench_rotation s46 main sk16 sk8
REPS=1 MIN_LEFT=40 bench_rotation s46 mn64 mn128 mn256
BUDGET=$all
mkdir -p "$W/ncu"
OUT="$W/ncu" CASES="$Q/M4/k4/f16/tcv $Q/M1/k4/f16/gemv" KREGEX="(tcv|gemv)_kernel" timeout 100 \
  bash bench/scripts/h100_pipe_util.sh > "$W/ncu.log" 2>&1
s "ncu rc=$? after $((SECONDS - T0)) s"
grep -E "==|duration|issue_active|warps_active|registers|dram" "$W/ncu/pipes.txt" | head -24 | tee -a "$W/summary.txt"
