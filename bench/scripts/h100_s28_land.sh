#!/usr/bin/env bash
# The twenty-eighth session's landing check. This tree against old (.deps/old-src.txz: the s28 tree
# before the session's kernel changes): tcw's plan counts the CTAs per SM the stream-K kernel holds
# (cached_blocks_per_sm's opt-in; tcw_slots' fallback to one below kTcwSharedSmMinSteps steps a CTA),
# padding under PDL to the plan's count for both kernels (tcw_pads), k = 2's 64-token stream-K grids
# under PDL, and the mbarrier stages with 3 stages at the 256-token tiles by default
# (KBIT_TCW_MBAR=256, KBIT_TCW_STAGES256=3). Arms: old, main, mb128 (KBIT_TCW_MBAR=128).
# Steps, each gated on the budget: every GPU doctest; memcheck over the PDL and chain doctests;
# racecheck over the chain and occupancy doctests; kbit-verify --quick over dense, --quick --pdl over
# dense.tcw and dense.automatic, --full over dense.tcw at M = 64, 256, 1024 (main) and M = 128 (mb128);
# racecheck and synccheck over random and adversarial tcw shapes at M = 64, 256 (main); then kbit-bench
# in rotation (subfolders): k2/ tcw and tcw_pdl at M = 33, 48, 64, k = 2 (old, main, 2 reps); big/ tcw
# at M = 256, 1024, k = 4 (old, main, 1 rep); m128/ tcw at M = 128, k = 2, 4 (main, mb128, 2 reps).
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz and
# .deps/old-src.txz. Env: SL_BUDGET (570 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/s28land" ${SL_BUDGET:-570}
device_build_old_start /tmp/sl || exit 1
device_build_knob_arms /tmp/sl mb128=-DKBIT_TCW_MBAR=128 || exit 1
device_build_old_finish /tmp/sl || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 150
grep -E "padded under PDL|plans' CTAs" "$W/kernels.txt" | head -3 | tee -a "$W/summary.txt"
doctest_sanitize memcheck '*LinearArgs::pdl*,*chain of linear*' 100
doctest_sanitize racecheck '*chain of linear*,*holds no more*' 60
verify_run verify 80 3 "verify --quick dense" --quick --kernels dense
verify_run verify-pdl 60 3 "verify --quick --pdl dense.tcw,dense.automatic" --quick --pdl --kernels dense.tcw,dense.automatic
verify_run verify-full 70 3 "verify --full dense.tcw M = 64, 256, 1024" --full --kernels dense.tcw --filter '/M(64|256|1024)/'
verify_sanitize tcw 230 40 '(random|adversarial).*/M(64|256)/' racecheck synccheck
V=(.deps/gpu/kbit-verify-mb128 --shapes "$R/data/shapes.json")
verify_run verify-mb128 40 3 "mb128 verify --full dense.tcw M = 128" --full --kernels dense.tcw --filter '/M128/'
dense_catalogue "$W/dense"
W0=$W
sub() { W=$W0/$1; mkdir -p "$W"; }
arm_setup() {
  case $1 in main) ;; *) BIN=.deps/gpu/kbit-bench-$1 ;; esac
  case $SUB in
    k2) KERNELS=tcw,tcw_pdl; B="--M 33,48,64 --bits 2 --dtypes f16" ;;
    big) KERNELS=tcw; B="--M 256,1024 --bits 4 --dtypes f16" ;;
    m128) KERNELS=tcw; B="--M 128 --bits 2,4 --dtypes f16" ;;
  esac
}
SUB=k2; sub k2; BUDGET=$((BUDGET - 110)) MIN_LEFT=15 REPS=2 bench_rotation slk2 old main
SUB=big; sub big; BUDGET=$((BUDGET - 55)) MIN_LEFT=15 REPS=1 bench_rotation slbig old main
SUB=m128; sub m128; MIN_LEFT=12 REPS=2 bench_rotation slm128 main mb128
for d in k2 big m128; do cat "$W0/$d/summary.txt" >> "$W0/summary.txt" 2>/dev/null; done
W=$W0
