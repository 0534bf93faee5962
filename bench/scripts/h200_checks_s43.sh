#!/usr/bin/env bash
# Forty-third session, one call on the H200 (main's tree with the new doctests, built here, binaries carried):
#   1. the whole GPU doctest binary, with two new checks: gemv's activation-sum tables forced inside the PDL doctest
#      (every grid form under PDL, exact) and the balance's pads against this device's occupancy calculator (need 3..
#      unpadded - 1 CTAs per SM exactly; padded PDL launches exact); memcheck and racecheck over the balance doctest;
#   2. ncu (bench/scripts/h100_pipe_util.sh) on the two MoE rows issue 7's write-up needs a profile for: grouped_tcw at
#      GLM-4.7-Flash experts.gate_up, 1024 tokens, k = 4 (0.95x of the fp16 alternative) and grouped_tcv at
#      Qwen3-Coder-Next experts.down, 16 tokens, k = 4 (1.88x against the 3x target);
#   3. the M = 1, k = 2 PDL dispatch audit the last session left: gemv_pdl, tcv_pdl and automatic_pdl over the dense
#      catalogue, f16, three reps (gemv_pdl led tcv on Qwen3 q_proj, 3.18 against 3.26 us, with the balance).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/c43 ${BUDGET:-480}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
doctest_sanitize memcheck '*balance*' 90
doctest_sanitize racecheck '*balance*' 120
for c in "moe/glm-4.7-flash.mlp.experts.gate_up/E64.N3072.K2048.top4.realistic/T1024/k4/f16/grouped_tcw" \
         "moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T16/k4/f16/grouped_tcv"; do
  k=${c##*/}
  mkdir -p "$W/ncu-$k"
  OUT="$W/ncu-$k" CASES="$c" KREGEX="${k}_kernel" timeout 170 bash bench/scripts/h100_pipe_util.sh > "$W/ncu-$k.log" 2>&1
  s "ncu $k rc=$? after $((SECONDS - T0)) s"
  grep -E "duration|dram__throughput|issue_active|warps_active|registers|pipe_tensor|pipe_alu|pipe_fma|lsu" "$W/ncu-$k/pipes.txt" | head -14 | tee -a "$W/summary.txt"
done
dense_catalogue "$W/cat"
arm_setup() { KERNELS=gemv_pdl,tcv_pdl,automatic_pdl; B="--M 1 --bits 2 --dtypes f16"; }
REPS=3 MIN_LEFT=15 RUN_MAX_S=60 bench_rotation s43 audit
