#!/usr/bin/env bash
# (Experiment build: the KBIT_GEMV_EARLY switch was in that tree only; main has mode e2 under gemv_early_launch.)
# gemv's workspace grids under LinearArgs::pdl with the first weight loads before the PDL wait
# (kernels/gemv.cu, kGemvEarly; KBIT_GEMV_EARLY=1) and also the next launch let in at the wait
# (kGemvEarlyTrigger; =2), against this build's main path (=0, the same SASS as main: sass_compare),
# one call, built on the GPU machine (pack first: bash bench/scripts/pack_device_build.sh). Checks:
# kbit-verify --quick --pdl over gemv in modes 1 and 2 (the sanitizers run in the landing call); then kbit-bench, arms e0, e1, e2 in rotation:
# the whole catalogue at M = 1, 2, k = 2..5 (gemv_pdl, automatic_pdl); then a floor: tiny shapes
# (64 x 256 .. 512 x 512) in modes 0 and 2. Env: GE_BUDGET (default 570 s), GE_REPS (default 2).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/gemvearly ${GE_BUDGET:-570}
device_build_new /tmp/gebuild kbit-bench kbit-verify || exit 1
gpu_info
for e in 1 2; do
  VENV="KBIT_GEMV_EARLY=$e" verify_run verify-pdl-e$e 60 4 "verify --quick --pdl gemv (early $e)" --quick --pdl --kernels gemv
done
arm_setup() { ENV="KBIT_GEMV_EARLY=${1#e}"; KERNELS=gemv_pdl,automatic_pdl; }
B="--M 1,2 --bits 2,3,4,5 --dtypes f16"
MIN_LEFT=40 REPS=${GE_REPS:-2} bench_rotation gemvearly e0 e1 e2
# The floor: gemv on tiny weights, where the bytes are nothing and only latency is left.
python3 - "$W/tiny.json" <<'PY'
import json, sys
g = [{"name": f"n{n}.k{k}", "N": n, "K": k} for n, k in [(64, 256), (256, 256), (512, 512), (512, 2048)]]
json.dump({"schema": "kbit-shapes/1", "models": [{"name": "tiny", "hidden": 256, "gemms": g}]}, open(sys.argv[1], "w"))
PY
for e in 0 2; do
  [ "$(left)" -gt 20 ] || break
  KBIT_GEMV_EARLY=$e timeout $(( $(left) - 5 )) .deps/gpu/kbit-bench --shapes "$W/tiny.json" --git-commit tiny-e$e \
    --M 1 --bits 4 --dtypes f16 --kernels gemv,gemv_pdl,automatic_pdl --json "$W/tiny-e$e.json" > "$W/tiny-e$e.txt" 2>&1
  s "tiny e$e rc=$? after $((SECONDS - T0)) s"
done
