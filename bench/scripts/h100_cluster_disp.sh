#!/usr/bin/env bash
# Thirty-fourth session, last call: choose_kernel takes tcw where its plan runs cluster slices, from 8 M weights at
# M = 129..512 (detail::tcw_cluster_slices; bench/results/2026-11-27-h100-clland had tcw launched plainly ahead of
# automatic_pdl's dequant_cublas on Qwen3 q_proj M = 256 and Llama-3-8B q/o_proj M = 512). Arms built side by side:
# old (OLD, the tree before the rule, cluster slices on) and new (this tree).
# On new: every kernel GPU doctest; kbit-verify --full --pdl over dense.automatic at M = 256, 512, and automatic on
# the moved shapes at M = 224, 352, 448, k = 4 (named cases, --pdl). Then kbit-bench automatic and automatic_pdl,
# old / new in rotation, two reps, Qwen3 q_proj and o_proj (control), Llama-3-8B q/o_proj, M = 160, 224, 256, 288,
# 352, 448, 512, k = 2..5. Predicted: the moved rows 1.05-1.2x, the control 1.00x.
# Pack first (OLD=REV bash bench/scripts/pack_device_build.sh); carry .deps/sys.txz and .deps/old-src.txz.
# Env: CD_BUDGET (330 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/cldisp" ${CD_BUDGET:-330}
device_build_ab /tmp/cd-old /tmp/cd-new kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 60
verify_run verify-full-pdl 60 3 "verify --full --pdl dense.automatic M = 256, 512" --full --pdl \
  --kernels dense.automatic --filter '/M(256|512)/'
n=0 bad=0
for r in qwen3-coder-next.attn.q_proj/N4096.K2048 llama-3-8b.attn.q_proj/N4096.K4096 llama-3-8b.attn.o_proj/N4096.K4096; do
  for M in 224 352 448; do
    for k in 4; do
      timeout 30 "${V[@]}" --case "dense/$r/M$M/k$k/f16/automatic" --pdl >> "$W/verify-rows.txt" 2>&1 || { bad=$((bad + 1)); s "FAIL $r M$M k$k"; }
      n=$((n + 1))
    done
  done
done
s "verify --pdl named automatic rows: $n cases, $bad failed, after $((SECONDS - T0)) s"
rows_catalogue qwen3-coder-next.attn.q_proj qwen3-coder-next.attn.o_proj llama-3-8b.attn.q_proj llama-3-8b.attn.o_proj
arm_setup() {
  KERNELS=automatic,automatic_pdl
  BIN=.deps/gpu/kbit-bench; [ "$1" = old ] && BIN=.deps/gpu/kbit-bench-old
  B="--M 160,224,256,288,352,448,512 --bits 2,3,4,5 --dtypes f16"
}
MIN_LEFT=15 REPS=2 bench_rotation cldisp old new
rm -rf /tmp/cd-*/lib /tmp/cd-*/kernels /tmp/cd-old/src 2>/dev/null; true
