#!/usr/bin/env bash
# Prepared in the thirty-third session, not yet run: the checks that KBIT_TCW_LATE_FETCH256=0x08 lacks before it
# can be the default (bench/results/2026-11-27-h100-late3: tcw_kernel<k = 3, 256> with its first weight request
# after the prologue, 1.07-1.09x on Qwen3 dense.gate_up at M = 224, 256). Builds main and late3 side by side; on
# late3: kbit-verify --full and --full --pdl over dense.tcw at M = 256, 512, 1024 (its 256-token kernels), then
# compute-sanitizer memcheck, racecheck and synccheck over kbit-verify --full (plain, then --pdl) of tcw's random
# and adversarial shapes at M = 256, 512, and of the measured row (named cases). If all pass, set the knob's default to 0x08 in tcw_common.cuh and check
# the cubin against a -DKBIT_TCW_LATE_FETCH256=0x08 build (bench/scripts/sass_compare.py). Pack first; carry
# .deps/sys.txz. Env: LS_BUDGET (560 s).
# Second question (thirty-fourth session), with what budget is left: the lead of -pdl512 (tcw_pdl ahead of
# automatic_pdl's dequant_cublas on a few rows at M = 384, 512, one rep, k = 2, 4) over more M, widths and
# reps: main's tcw_pdl and automatic_pdl over the dense block shapes below 40 M weights (those where automatic
# keeps dequant_cublas at 257..512), M = 320, 384, 448, 512, k = 2..5, two reps (pdl/).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/late3san" ${LS_BUDGET:-560}
device_build_knob_arms /tmp/ls "late3=-DKBIT_TCW_LATE_FETCH256=0x08" || exit 1
gpu_info
V=(.deps/gpu/kbit-verify-late3 --shapes "$R/data/shapes.json")
verify_run verify-late3 90 3 "late3 verify --full dense.tcw M = 256, 512, 1024" --full --kernels dense.tcw \
  --filter '/M(256|512|1024)/'
verify_run verify-late3-pdl 90 3 "late3 verify --full --pdl dense.tcw M = 256, 512, 1024" --full --pdl \
  --kernels dense.tcw --filter '/M(256|512|1024)/'
verify_sanitize late3 60 90 '(random|adversarial).*/M(256|512)/' memcheck racecheck synccheck
for tool in memcheck racecheck; do
  [ "$(left)" -gt 40 ] || { s "$tool --pdl skipped: $(left) s left"; continue; }
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 "${V[@]}" --full --pdl --no-cublas --no-exact \
    --no-rerun --kernels dense.tcw --filter '(random|adversarial).*/M(256|512)/' > "$W/$tool-pdl.txt" 2>&1
  s "$tool --pdl late3 M = 256, 512 rc=$? after $((SECONDS - T0)) s"; tail -2 "$W/$tool-pdl.txt" | tee -a "$W/summary.txt"
done
# The measured row itself (its plan is tcw_kernel<k = 3, 256>, 80 per-tile CTAs; the --full sweep's rotation gives
# this shape other widths at M = 256): named cases, plain and --pdl, under memcheck and racecheck.
for M in 224 256; do
  for pdl in "" --pdl; do
    c="dense/qwen3-coder-next.mlp.dense.gate_up/N10240.K2048/M$M/k3/f16/tcw"
    for tool in memcheck racecheck; do
      [ "$(left)" -gt 15 ] || continue
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "${V[@]}" --case "$c" $pdl --no-cublas --no-exact \
        --no-rerun > "$W/$tool-row-M$M$pdl.txt" 2>&1
      s "$tool $c $pdl rc=$? after $((SECONDS - T0)) s"; tail -1 "$W/$tool-row-M$M$pdl.txt" | tee -a "$W/summary.txt"
    done
  done
done
mkdir -p "$W/pdl"
python3 - "$R/data/shapes.json" "$W/pdl/small.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["models"]:
    m["gemms"] = [g for g in m["gemms"] if g.get("experts", 1) == 1 and g["N"] * g["K"] < 40e6]
json.dump(d, open(sys.argv[2], "w"))
PY
SHAPES=$W/pdl/small.json
W0=$W; W=$W/pdl
arm_setup() {
  KERNELS=tcw_pdl,automatic_pdl
  BIN=.deps/gpu/kbit-bench-main
  B="--M 320,384,448,512 --bits 2,3,4,5 --dtypes f16"
}
MIN_LEFT=25 REPS=2 bench_rotation pdl main
W=$W0
cat "$W/pdl/summary.txt" >> "$W/summary.txt" 2>/dev/null
rm -rf /tmp/ls-*/lib /tmp/ls-*/kernels 2>/dev/null; true
