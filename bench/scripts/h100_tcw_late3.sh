#!/usr/bin/env bash
# Thirty-third session, last call. bench/results/2026-11-27-h100-pdl512 found Qwen3 dense.gate_up at M = 224, 256,
# k = 3 0.92x in tcw's plain launches too (three reps): the plan is 80 per-tile CTAs of 256 tokens,
# tcw_kernel<k = 3, 256>, whose SASS KBIT_TCW_PDL_BIG changed (the first weights before the PDL wait). Arm late3
# (-DKBIT_TCW_LATE_FETCH256=0x08) keeps that kernel's late weight request: its SASS is main's before the change
# but for the wait instruction and uniform-register names (bench/scripts/sass_compare.py). Against main (this
# tree's default): kbit-bench tcw and tcw_pdl over dense at M = 224, 256, k = 3, f16, two reps in rotation.
# Predicted: late3 ~1.08x on that row in both kernels, the other k = 3 rows of 256-token tiles 0.98-1.02x.
# Also on main: every kernel GPU doctest (the reviewed test changes); on late3: kbit-verify --quick --pdl over
# dense.tcw. Pack first; carry .deps/sys.txz. Env: PZ_BUDGET (235 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/late3" ${PZ_BUDGET:-235}
device_build_knob_arms /tmp/pz "late3=-DKBIT_TCW_LATE_FETCH256=0x08" || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 60
V=(.deps/gpu/kbit-verify-late3 --shapes "$R/data/shapes.json")
verify_run verify-late3 30 3 "late3 verify --quick --pdl dense.tcw" --quick --pdl --kernels dense.tcw
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw,tcw_pdl
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 224,256 --bits 3 --dtypes f16"
}
MIN_LEFT=10 REPS=2 bench_rotation late3 main late3
rm -rf /tmp/pz-*/lib /tmp/pz-*/kernels 2>/dev/null; true
