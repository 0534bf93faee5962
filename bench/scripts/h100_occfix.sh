#!/usr/bin/env bash
# tcw's plan counted 1 CTA per SM for its 64-token kernels without the pair table: their occupancy
# query ran without the shared-memory opt-in (48 KB dynamic + 2.3 KB static) and fell back to 1;
# k = 2's stream-K kernel (127 registers) holds 2. cached_blocks_per_sm now sets the opt-in when the
# static and dynamic sizes pass 48 KB together. And the tcw mbarrier experiment at the 256-token tiles.
# Arms, built side by side: old (.deps/old-src.txz: the tree before the fix), main (this tree), sk2
# (KBIT_TCW_PDLSK2=1: k = 2's 64-token stream-K grids under PDL too, now that the plan counts what an SM
# holds) and mbs3 (KBIT_TCW_MBAR=128 KBIT_TCW_STAGES256=3).
# Steps, each gated on the budget: every GPU doctest (the occupancy doctest checks the plan against
# the stream-K kernel's occupancy); memcheck over the PDL and chain doctests; kbit-verify --quick and
# --quick --pdl over dense.tcw and dense.automatic (main), --quick --pdl dense.tcw (sk2); mbs3:
# --full dense.tcw at M = 256, 1024 and racecheck / synccheck on random and adversarial shapes at
# M = 256; kbit-bench in rotation, 2 reps: tcw and tcw_pdl over dense at M = 33, 48, 64, k = 2 (old,
# main, sk2), then tcw over dense at M = 256, 1024, k = 2, 4 (main, mbs3; files under $W/mb).
# Pack first with OLD=<the commit before the fix> bash bench/scripts/pack_device_build.sh; carry
# .deps/sys.txz and .deps/old-src.txz. Env: OF_BUDGET (570 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/occfix" ${OF_BUDGET:-570}
device_build_old_start /tmp/of || exit 1
device_build_knob_arms /tmp/of sk2=-DKBIT_TCW_PDLSK2=1 "mbs3=-DKBIT_TCW_MBAR=128 -DKBIT_TCW_STAGES256=3" || exit 1
device_build_old_finish /tmp/of || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 150
grep -E "padded under PDL|plans' CTAs" "$W/kernels.txt" | head -3 | tee -a "$W/summary.txt"
doctest_sanitize memcheck '*LinearArgs::pdl*,*chain of linear*' 100
verify_run verify 60 3 "verify --quick dense.tcw,dense.automatic" --quick --kernels dense.tcw,dense.automatic
verify_run verify-pdl 60 3 "verify --quick --pdl dense.tcw,dense.automatic" --quick --pdl --kernels dense.tcw,dense.automatic
V=(.deps/gpu/kbit-verify-sk2 --shapes "$R/data/shapes.json")
verify_run verify-pdl-sk2 50 3 "sk2 verify --quick --pdl dense.tcw" --quick --pdl --kernels dense.tcw
V=(.deps/gpu/kbit-verify-mbs3 --shapes "$R/data/shapes.json")
verify_run verify-mbs3 60 3 "mbs3 verify --full dense.tcw M = 256, 1024" --full --kernels dense.tcw --filter '/M(256|1024)/'
verify_sanitize mbs3 250 40 '(random|adversarial).*/M256/' racecheck synccheck
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw,tcw_pdl
  case $1 in main) ;; *) BIN=.deps/gpu/kbit-bench-$1 ;; esac
  B="--M 33,48,64 --bits 2 --dtypes f16"
}
BUDGET=$((BUDGET - 170)) MIN_LEFT=15 REPS=2 bench_rotation occfix old main sk2
W0=$W; W=$W/mb; mkdir -p "$W"
arm_setup() {
  KERNELS=tcw
  case $1 in main) ;; *) BIN=.deps/gpu/kbit-bench-$1 ;; esac
  B="--M 256,1024 --bits 2,4 --dtypes f16"
}
MIN_LEFT=12 REPS=2 bench_rotation occmb main mbs3
cat "$W/summary.txt" >> "$W0/summary.txt"; W=$W0
