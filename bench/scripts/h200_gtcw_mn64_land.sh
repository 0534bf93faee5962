#!/usr/bin/env bash
# Forty-fourth session, landing call of grouped_tcw's 64-token tile at k = 3, 4 (bench/results/2026-11-28-h200-gtcwmn64):
# the 64-token kernels at two CTAs per SM (KBIT_GTCW_MINB64) and the tile rule 64 to 96 mean rows, then 256
# (KBIT_GTCW_MN64=0 restores the old rule in the same binary). Main's tree with the rule, built here, carried:
#   1. the whole GPU doctest binary (a new doctest forces every tile at every k, bit for bit); memcheck and racecheck
#      over it;
#   2. kbit-verify --quick over the MoE kernels, --m 128..2048 over grouped_tcw and automatic, and automatic plain and
#      --pdl on five named moved cases;
#   3. kbit-bench automatic on the MoE projections at M = 128..2048, k = 3, 4, f16: old rule / new in rotation, two
#      reps; then grouped_tcw, grouped_tcv and automatic at M = 32..256 (the grouped_tcv / grouped_tcw crossover at
#      4-16 mean rows, automatic from 8) once.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/g64l ${BUDGET:-480}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
doctest_sanitize memcheck '*every token tile*' 90
doctest_sanitize racecheck '*every token tile*' 90
verify_run verify-quick 150 4 "verify --quick moe" --quick --kernels moe
verify_run verify-m 150 4 "verify --m 128,512,1024,2048 grouped_tcw,automatic" --m 128,512,1024,2048 \
  --kernels moe.grouped_tcw,moe.automatic
G=moe/glm-4.7-flash.mlp.experts
verify_cases verify-named 60 $G.gate_up/E64.N3072.K2048.top4.realistic/T1024/k4 \
  $G.down/E64.N2048.K1536.top4.realistic/T1024/k4 $G.gate_up/E64.N3072.K2048.top4.realistic/T512/k3 \
  moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T2048/k3 \
  moe/qwen3-coder-next.mlp.experts.gate_up/E512.N1024.K2048.top10.realistic/T4096/k4
grep -E "cases in" "$W/verify-named.txt" | sed 's/in [0-9.]* s/in _ s/' | sort | uniq -c | tee -a "$W/summary.txt"
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=automatic
  B="--models glm-4.7-flash,qwen3-coder-next --M 128,256,512,1024,2048 --bits 3,4 --dtypes f16"
  [ "$1" = old ] && ENV="KBIT_GTCW_MN64=0"
}
BUDGET=$((BUDGET - 70)) REPS=2 MIN_LEFT=10 bench_rotation g64l old new  # 70 s kept for the crossover run
arm_setup() {
  KERNELS=grouped_tcw,grouped_tcv,automatic
  B="--models glm-4.7-flash,qwen3-coder-next --M 32,64,128,256 --bits 3,4 --dtypes f16"
}
REPS=1 MIN_LEFT=10 bench_rotation g64x cross
