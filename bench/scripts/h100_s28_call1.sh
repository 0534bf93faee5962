#!/usr/bin/env bash
# The twenty-eighth session's first device call, over branch s28 (main + exp/short-narrow-pdl64 +
# exp/tcw-mbar, whose knob is off by default). In order, each step gated on the budget:
# - builds: main, off (KBIT_TCW_PDL64=0) and mb32 (KBIT_TCW_MBAR=32) side by side;
# - cuobjdump's resource usage of the 64-token tcw kernels at k = 2, 3 (the plan counts one CTA per
#   SM for k = 2's stream-K kernel; a local ptxas gives it 127 registers);
# - every GPU doctest (the k = 3 PDL case, the occupancy check, the short narrow dispatch at k = 4, 5);
# - memcheck over the PDL doctests, racecheck over the chain and occupancy doctests;
# - kbit-verify --quick --pdl over dense;
# - mb32 (never run before): verify --full dense.tcw at M = 64..1024 (its timeout is the hang check),
#   --quick --pdl dense.tcw, then memcheck / racecheck / synccheck over random and adversarial tcw
#   shapes at M = 64, 256;
# - kbit-bench in rotation, 2 reps: automatic and automatic_pdl, arms off and main, dense, M = 33, 48,
#   64, k = 2, 3, f16 (the raised shared-memory cap must leave plain rows alone; the short narrow rows
#   of automatic_pdl move to tcw at k <= 4);
# - with time left: tcw, arms main and mb32, dense, M = 1024, k = 4 (a first look).
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: S28_BUDGET (575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/s28" ${S28_BUDGET:-575}
device_build_knob_arms /tmp/s28 off=-DKBIT_TCW_PDL64=0 mb32=-DKBIT_TCW_MBAR=32 || exit 1
gpu_info
{ cuobjdump --dump-resource-usage /tmp/s28-main/kernels/libkbit_gpu.a 2>&1 | grep -A1 -E "tcw_(streamk_)?kernel.*Li[23]ELi64E" ; } \
  > "$W/tcw-resources.txt"; s "tcw 64-token k = 2, 3 resources: $(wc -l < "$W/tcw-resources.txt") lines"
grep -E "REG:|Function" "$W/tcw-resources.txt" | sed -E 's/.*(tcw_[a-z_]*kernel[^ ]{0,40}).*/\1/; s/.*(REG:[0-9]+).*(SHARED:[0-9]+).*/  \1 \2/' | head -16 | tee -a "$W/summary.txt"
gpu_doctest kernels kbit_tests_kernels 150
grep -E "padded under PDL" "$W/kernels.txt" | head -2 | tee -a "$W/summary.txt"
doctest_sanitize memcheck '*LinearArgs::pdl*,*chain of linear*' 120
doctest_sanitize racecheck '*chain of linear*,*holds no more*' 90
verify_run verify-pdl 90 3 "verify --quick --pdl dense" --quick --pdl --kernels dense
# mb32
V=(.deps/gpu/kbit-verify-mb32 --shapes "$R/data/shapes.json")
verify_run verify-mb32 100 3 "mb32 verify --full dense.tcw M = 64..1024" --full --kernels dense.tcw \
  --filter '/M(64|128|256|1024)/'
verify_run verify-pdl-mb32 60 3 "mb32 verify --quick --pdl dense.tcw" --quick --pdl --kernels dense.tcw
verify_sanitize mb32 130 50 '(random|adversarial).*/M(64|256)/' memcheck racecheck synccheck
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=automatic,automatic_pdl
  case $1 in off) BIN=.deps/gpu/kbit-bench-off ;; esac
  B="--M 33,48,64 --bits 2,3 --dtypes f16"
}
BUDGET=$((BUDGET - 45)) MIN_LEFT=15 REPS=2 bench_rotation s28 off main
arm_setup() {
  KERNELS=tcw
  case $1 in mb32) BIN=.deps/gpu/kbit-bench-mb32 ;; esac
  B="--M 1024 --bits 4 --dtypes f16"
}
MIN_LEFT=12 REPS=1 bench_rotation s28mb main mb32
