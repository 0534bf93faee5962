#!/usr/bin/env bash
# Thirty-fourth session: the landing check of two changes against the tree before them (OLD), built side by side.
# 1. KBIT_TCW_LATE_FETCH256 = 0x08 by default (tcw_kernel<k = 3, 256> requests its first weights after its
#    prologue; sanitized in bench/results/2026-11-27-h100-late3san).
# 2. choose_kernel under live PDL, with a handle, takes tcw from dequant_cublas at M = 257..384 on rows of
#    N >= 8192 from 16 M weights and at 257..448 on rows of K >= 8192 from 8 M weights at k <= 4 (-late3san/pdl).
# On new: every kernel GPU doctest; kbit-verify --pdl of automatic on the rows the rules move (named cases,
# M = 320, 384, 448) and --full --pdl over dense.automatic at M = 256, 512; memcheck and racecheck of tcw --pdl
# on those rows. Then kbit-bench automatic_pdl old / new over the shapes the rules read, the non-block ones too
# (Qwen3 dense.gate_up, q_proj_gated, in_proj_qkvz, GLM shared_experts.gate; Llama-3-70B k/v_proj; Llama-3-8B
# q_proj as a control), M = 288..448, k = 2..5, three reps in rotation. Predicted: Qwen3 dense.gate_up 1.1-1.4x at
# M = 288..384, Llama-3-70B k/v_proj 1.0-1.15x at k <= 4, the control 1.00x.
# Pack first (OLD=REV bash bench/scripts/pack_device_build.sh); carry .deps/sys.txz and .deps/old-src.txz.
# Env: PL_BUDGET (540 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/pdl448" ${PL_BUDGET:-540}
device_build_ab /tmp/pl-old /tmp/pl-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 90
rows=(qwen3-coder-next.mlp.dense.gate_up/N10240.K2048 llama-3-70b.attn.k_proj/N1024.K8192
      llama-3-70b.attn.v_proj/N1024.K8192)
n=0 bad=0
for r in "${rows[@]}"; do
  for M in 320 384 448; do
    for k in 2 3 4 5; do
      for kern in automatic tcw; do
        c="dense/$r/M$M/k$k/f16/$kern"
        timeout 30 "${V[@]}" --case "$c" --pdl >> "$W/verify-rows.txt" 2>&1 || { bad=$((bad + 1)); s "FAIL $c --pdl"; }
        n=$((n + 1))
      done
    done
  done
done
s "verify --pdl named rows: $n cases, $bad failed, after $((SECONDS - T0)) s"
grep -c "PASS" "$W/verify-rows.txt" | sed 's/^/PASS lines: /' | tee -a "$W/summary.txt"
verify_run verify-full-pdl 90 3 "verify --full --pdl dense.automatic M = 256, 512" --full --pdl --kernels dense.automatic \
  --filter '/M(256|512)/'
for tool in memcheck racecheck; do
  for r in "${rows[@]}"; do
    for M in 320 448; do
      c="dense/$r/M$M/k4/f16/tcw"
      [ "$(left)" -gt 200 ] || continue
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "${V[@]}" --case "$c" --pdl --no-cublas --no-exact \
        --no-rerun > "$W/$tool-rows.txt" 2>&1
      s "$tool $c --pdl rc=$? after $((SECONDS - T0)) s"; tail -1 "$W/$tool-rows.txt" | tee -a "$W/summary.txt"
    done
  done
done
python3 - "$R/data/shapes.json" "$W/rules.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keep = {("qwen3-coder-next", "mlp.dense.gate_up"), ("qwen3-coder-next", "attn.q_proj_gated"),
        ("qwen3-coder-next", "linear_attn.in_proj_qkvz"), ("glm-4.7-flash", "mlp.shared_experts.gate"),
        ("llama-3-70b", "attn.k_proj"), ("llama-3-70b", "attn.v_proj"), ("llama-3-8b", "attn.q_proj")}
for m in d["models"]:
    m["gemms"] = [g for g in m["gemms"] if (m["name"], g["name"]) in keep]
d["models"] = [m for m in d["models"] if m["gemms"]]
json.dump(d, open(sys.argv[2], "w"))
PY
SHAPES=$W/rules.json
arm_setup() {
  KERNELS=automatic_pdl
  BIN=.deps/gpu/kbit-bench; [ "$1" = old ] && BIN=.deps/gpu/kbit-bench-old
  B="--M 288,320,352,384,416,448 --bits 2,3,4,5 --dtypes f16 --non-block"
}
MIN_LEFT=20 REPS=3 bench_rotation pdl448 old new
rm -rf /tmp/pl-*/lib /tmp/pl-*/kernels /tmp/pl-old/src 2>/dev/null; true
