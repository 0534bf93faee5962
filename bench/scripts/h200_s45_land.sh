#!/usr/bin/env bash
# Forty-fifth session, second call (main with grouped_tcw's k = 5 two-CTA landing and grouped_tcv's items sized by the
# mean rows per active expert; built here, carried):
#   1. the whole GPU doctest binary; the MoE exact doctest again with KBIT_GTCV_NT_HINT=1 (the old item sizing);
#      memcheck over the forced-tile and MoE exact doctests, racecheck over the forced-tile one (k = 5's 64-token
#      kernels now at two CTAs per SM);
#   2. kbit-verify over grouped_tcv and automatic at MoE tokens 8, 12, 16 (the plans' hint is the most rows of any
#      expert: the rows the new sizing moves), plain and --pdl;
#   3. the A/B: grouped_tcv and automatic_pdl on the Qwen3-Coder-Next and GLM-4.7-Flash experts at M = 4..16,
#      k = 2..5, f16: items by the mean (main) against by the hint (KBIT_GTCV_NT_HINT=1), two reps in rotation;
#   4. k = 5 at 6-8 mean rows: grouped_tcv and grouped_tcw at its rule's 64-token tile against the old 32
#      (KBIT_GTCW_MN=32), one rep each.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s45l ${BUDGET:-420}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
(cd .deps/gpu && KBIT_GTCV_NT_HINT=1 timeout 60 ./kbit_tests_kernels -tc='*MoE kernels equal the CPU reference*' \
  > "$W/kernels-nthint.txt" 2>&1); s "MoE exact doctest with KBIT_GTCV_NT_HINT=1 rc=$?"
grep -E 'assertions|Status' "$W/kernels-nthint.txt" | tee -a "$W/summary.txt"
doctest_sanitize memcheck '*every token tile*,*MoE kernels equal the CPU reference*' 150
doctest_sanitize racecheck '*every token tile*' 150
verify_run verify-m 90 4 "verify --m 8,12,16 grouped_tcv,automatic" --m 8,12,16 --kernels moe.grouped_tcv,moe.automatic
verify_run verify-m-pdl 90 4 "verify --pdl --m 8,12,16 grouped_tcv,automatic" --pdl --m 8,12,16 \
  --kernels moe.grouped_tcv,moe.automatic
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_tcv,automatic_pdl
  B="--models glm-4.7-flash,qwen3-coder-next --M 4,8,12,16 --bits 2,3,4,5 --dtypes f16"
  [ "$1" = hint ] && ENV="KBIT_GTCV_NT_HINT=1"
}
REPS=2 MIN_LEFT=70 bench_rotation nt mean hint
arm_setup() {
  KERNELS=grouped_tcv,grouped_tcw,automatic
  B="--models glm-4.7-flash,qwen3-coder-next --M 96,128,320,400 --bits 5 --dtypes f16"
  [ "$1" = mn32 ] && ENV="KBIT_GTCW_MN=32"
}
REPS=1 MIN_LEFT=10 bench_rotation k5lo rule mn32
