#!/usr/bin/env bash
# Thirty-third session, after the landing of tcw under PDL above M = 64 (bench/results/2026-11-27-h100-pdlland):
# two questions in one call. Arms: main (this tree) and old (-DKBIT_TCW_PDL_MAXM=64 -DKBIT_TCW_PDL_BIG=0, the
# behaviour before), built side by side.
# 1. M = 384, 512: does tcw_pdl now beat automatic_pdl's dequant_cublas on the shapes the rules leave to it
#    (< 10 M weights, or K < 5120 below 40 M)? kbit-bench tcw_pdl and automatic_pdl over dense, k = 2, 4, one rep.
#    Predicted: tcw_pdl 1.03-1.08x over old; against dequant_cublas mixed, as at M = 1024 (0.65-0.90x there).
# 2. Qwen3 dense.gate_up at k = 3 lost 0.91-0.94x at M = 224, 256 under PDL in -pdlland (one run): tcw and
#    tcw_pdl on Qwen3 dense.gate_up, dense.down, o_proj at M = 192, 224, 256, 288, k = 2..5, three reps per arm.
# Pack first; carry .deps/sys.txz. Env: PQ_BUDGET (420 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/pdl512" ${PQ_BUDGET:-420}
device_build_knob_arms /tmp/pq "old=-DKBIT_TCW_PDL_MAXM=64 -DKBIT_TCW_PDL_BIG=0" || exit 1
gpu_info
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw_pdl,automatic_pdl
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 384,512 --bits 2,4 --dtypes f16"
}
MIN_LEFT=150 REPS=1 bench_rotation pdl512 old main
mkdir -p "$W/q3"
python3 - "$R/data/shapes.json" "$W/q3/q3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["models"] = [m for m in d["models"] if m["name"] == "qwen3-coder-next"]
keep = {"mlp.dense.gate_up", "mlp.dense.down", "attn.o_proj"}
for m in d["models"]:
    m["gemms"] = [g for g in m["gemms"] if g["name"] in keep]
json.dump(d, open(sys.argv[2], "w"))
PY
SHAPES=$W/q3/q3.json
W0=$W; W=$W/q3
arm_setup() {
  KERNELS=tcw,tcw_pdl
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 192,224,256,288 --bits 2,3,4,5 --dtypes f16"
}
MIN_LEFT=15 REPS=3 bench_rotation q3 old main
W=$W0
cat "$W/q3/summary.txt" >> "$W/summary.txt" 2>/dev/null
rm -rf /tmp/pq-*/lib /tmp/pq-*/kernels 2>/dev/null; true
