#!/usr/bin/env bash
# Forty-fifth session, record call on main (grouped_tcw's k = 5 kernels at two CTAs per SM and k = 5's dispatch from 6
# mean rows; grouped_tcv's item sizing and k = 2 pair table by the mean rows per active expert; built here, carried):
#   1. the whole GPU doctest binary; kbit-verify --quick --pdl over automatic and the MoE kernels;
#   2. the targets record: kbit-bench automatic and automatic_pdl over the whole catalogue, M = 1 .. 1024, k = 2 and 4,
#      f16 (each row verified by the bench), then bench/scripts/targets.py, as -land-s43;
#   3. ncu pipes and stalls of grouped_tcv on Qwen3-Coder-Next experts.down at 16 tokens, k = 4 (one n8 tile now), the
#      next session's baseline beside -checks-s43's (two tiles then).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s45f ${BUDGET:-420}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
verify_run verify-quick-pdl 120 4 "verify --quick --pdl automatic,moe" --quick --pdl --kernels dense.automatic,moe
arm_setup() { B="--M 1,2,4,8,16,32,64,128,256,512,1024 --bits 2,4 --dtypes f16 --markdown $W/report.md --svg-dir $W/svg"; }
REPS=1 MIN_LEFT=60 bench_rotation main record
python3 bench/scripts/targets.py "$W/bench-1-record.json" --markdown "$W/targets.md" >> "$W/summary.txt" 2>&1
c=moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T16/k4/f16/grouped_tcv
mkdir -p "$W/ncu-grouped_tcv"
OUT="$W/ncu-grouped_tcv" CASES="$c" KREGEX="grouped_tcv_kernel" timeout 120 bash bench/scripts/h100_pipe_util.sh \
  > "$W/ncu-grouped_tcv.log" 2>&1
s "ncu grouped_tcv rc=$? after $((SECONDS - T0)) s"
grep -E "duration|issue_active|warps_active|registers|pipe_tensor|pipe_alu|pipe_fma|lsu" "$W/ncu-grouped_tcv/pipes.txt" |
  head -14 | tee -a "$W/summary.txt"
