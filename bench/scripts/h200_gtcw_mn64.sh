#!/usr/bin/env bash
# Forty-fourth session: grouped_tcw's 64-token kernels at two CTAs per SM for k = 3 and 4 (KBIT_GTCW_MINB64 in
# kernels/grouped_tcw.cu, as tcw_kernel's since the thirty-second session; ptxas: k = 4 on the pair table 127
# registers, k = 3 128 with 8 bytes spilled, the two-row-tile forms 12-20 bytes). No dispatch picks a 64-token tile
# at k >= 3 yet; KBIT_GTCW_MN (environment) forces one tile at every k for this A/B in one binary. Built here, carried:
#   1. the MoE doctests with the tile forced to 64; kbit-verify over grouped_tcw at M = 512, 1024, 2048 and named
#      k = 3, 4 cases (GLM-4.7-Flash experts at 1,024 tokens), the tile forced to 64; memcheck on three cases;
#   2. kbit-bench grouped_tcw on the MoE projections of Qwen3-Coder-Next and GLM-4.7-Flash at M = 512..4096, k = 3, 4,
#      f16: the rule (unset) / 64 / 128 / 256 in rotation, three reps.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/g64 ${BUDGET:-420}
gpu_info
export KBIT_GTCW_MN=64
doctest_filter '*MoE*,*grouped*' 150 "MoE doctests, KBIT_GTCW_MN=64"
verify_run verify-m 150 6 "verify grouped_tcw --m 512,1024,2048, KBIT_GTCW_MN=64" --m 512,1024,2048 --kernels moe.grouped_tcw
G=moe/glm-4.7-flash.mlp.experts
VKERNELS=grouped_tcw verify_cases verify-named 60 $G.gate_up/E64.N3072.K2048.top4.realistic/T1024/k4 \
  $G.down/E64.N2048.K1536.top4.realistic/T1024/k4 $G.gate_up/E64.N3072.K2048.top4.realistic/T1024/k3 \
  $G.down/E64.N2048.K1536.top4.realistic/T1024/k3
grep -E "cases in" "$W/verify-named.txt" | sed 's/in [0-9.]* s/in _ s/' | sort | uniq -c | tee -a "$W/summary.txt"
sanitize_cases mn64 120 memcheck $G.down/E64.N2048.K1536.top4.realistic/T512/k4/f16/grouped_tcw \
  $G.gate_up/E64.N3072.K2048.top4.realistic/T512/k3/bf16/grouped_tcw \
  moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T512/k3/f16/grouped_tcw
unset KBIT_GTCW_MN
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_tcw
  B="--models glm-4.7-flash,qwen3-coder-next --M 512,1024,2048,4096 --bits 3,4 --dtypes f16"
  [ "$1" = rule ] || ENV="KBIT_GTCW_MN=${1#mn}"
}
REPS=3 MIN_LEFT=10 bench_rotation g64 rule mn64 mn128 mn256
