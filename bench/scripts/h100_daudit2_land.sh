#!/usr/bin/env bash
# Twenty-sixth session: the second dispatch audit's rule changes (kernels/api.cu;
# bench/results/2026-11-27-h100-daudit2, every kernel beside automatic_pdl, the grouped ones with PDL too):
# - MoE: grouped_gemv at k = 5 up to 16 routed rows of wide experts (N >= 2048) as of short ones;
# - PDL, M = 9..16, K >= 4096: tcv's early grids of <= 5 slices and <= 4 steps per warp at k = 2, 3;
# - M = 9..16: the N >= 16384 (below 100 M weights) exclusion from tcw at k = 4 too (with or without PDL);
# - PDL, M = 2, k = 4: gemv keeps the one-pass shapes from 16 M weights where tcv has no pair table.
# One call: old (HEAD before the change, .deps/old-src.txz) and new built side by side; the dispatch
# doctests (PDL, one-pass, MoE; they run the PDL cases' kernels too); kbit-verify --quick over automatic
# with and without --pdl (new); kbit-bench old / new in rotation, 2 reps: the MoE catalogue at k = 5,
# M = 1..16, and all four catalogue models at M = 2, 12, 16, k = 2..5 (automatic, automatic_pdl).
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz and
# .deps/old-src.txz. Env: D2_BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/d2land ${D2_BUDGET:-560}
device_build_ab /tmp/d2-old /tmp/d2-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*LinearArgs::pdl*,*one-pass*,*MoE dispatch*,*with PDL*' 150 'dispatch'
verify_run verify-pdl 90 4 "verify --quick --pdl automatic" --quick --pdl --kernels dense.automatic,moe.automatic
verify_run verify 90 4 "verify --quick automatic" --quick --kernels dense.automatic,moe.automatic
BUDGET=$((BUDGET - 10)) REPS=2 MIN_LEFT=20 dense_moe_ab daudit2 "--M 2,12,16 --bits 2,3,4,5 --dtypes f16" automatic,automatic_pdl \
  "--models qwen3-coder-next glm-4.7-flash --M 1,2,3,4,8,16 --bits 5 --dtypes f16" automatic,automatic_pdl
