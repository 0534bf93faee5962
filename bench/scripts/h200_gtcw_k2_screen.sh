#!/usr/bin/env bash
# Forty-fourth session, last call, after a review of the 64-token tile change: the whole GPU doctest binary on main (a
# doctest now checks the 64-token kernels' CTAs per SM on the device, grouped_tcw_resident); the dispatch doctest
# with KBIT_GTCW_MN64=0 (the old threshold and tiles); kbit-verify over automatic with KBIT_GTCW_MN64=0 on a case it
# moves back. Then a screen of grouped_tcw's token tile at k = 2 on the H200 (its rule, 32 to 16 mean rows, 64 to 160,
# then 256, was set on the H100): grouped_tcw with the tile forced (KBIT_GTCW_MN) to 32 / 64 / 256 on the
# Qwen3-Coder-Next and GLM-4.7-Flash experts at M = 128..2048, f16, one run each. A lead, not a landing.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/k2s ${BUDGET:-200}
gpu_info
gpu_doctest kernels kbit_tests_kernels 180
(cd .deps/gpu && KBIT_GTCW_MN64=0 timeout 60 ./kbit_tests_kernels -tc='*grouped_tcw from 8 mean rows*,*every token tile*' \
  > "$W/kernels-mn64off.txt" 2>&1); s "doctests with KBIT_GTCW_MN64=0 rc=$?"
grep -E 'assertions|Status' "$W/kernels-mn64off.txt" | tee -a "$W/summary.txt"
VENV=KBIT_GTCW_MN64=0 verify_run verify-mn64off 60 3 "verify automatic, KBIT_GTCW_MN64=0" \
  --case moe/glm-4.7-flash.mlp.experts.down/E64.N2048.K1536.top4.realistic/T96/k4/f16/automatic
moe_catalogue "$W/moe"
arm_setup() {
  KERNELS=grouped_tcw
  B="--models glm-4.7-flash,qwen3-coder-next --M 128,256,512,1024,2048 --bits 2 --dtypes f16"
  ENV="KBIT_GTCW_MN=${1#mn}"
}
REPS=1 MIN_LEFT=10 bench_rotation k2s mn32 mn64 mn256
