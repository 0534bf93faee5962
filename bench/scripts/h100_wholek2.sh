#!/usr/bin/env bash
# Thirtieth session, after the whole-tile runs landed at k >= 4: why they lost at k = 2 and 3 (0.90-0.96x
# in bench/results/2026-11-27-h100-tcwwhole), and whether tcw at k = 5 now beats dequantize + cuBLAS at
# M = 768 and 1024 (choose_kernel's M = 513..1024 rule leaves k = 5 to dequant_cublas).
# Two builds side by side: main (this tree) and wk2 (-DKBIT_TCW_WHOLE_MINBITS=2: whole runs at every k).
# On wk2: kbit-verify --full over dense.tcw at M = 512, 1024. kbit-bench main / wk2 in rotation, 2 reps:
# tcw over dense at M = 1024, k = 2, 3. On main: tcw, dequant_cublas and automatic over dense at
# M = 768, 1024, k = 5. Then ncu (h100_pipe_util.sh) on Llama-3-70B o_proj and gate_up at M = 1024, k = 2,
# main (tcw_kernel, per tile) then wk2 (tcw_streamk_kernel, whole runs).
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: WK_BUDGET (580 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/wholek2" ${WK_BUDGET:-580}
device_build_knob_arms /tmp/wk wk2=-DKBIT_TCW_WHOLE_MINBITS=2 || exit 1
gpu_info
V=(.deps/gpu/kbit-verify-wk2 --shapes "$R/data/shapes.json")
verify_run verify-full-wk2 60 3 "wk2 verify --full dense.tcw M = 512, 1024" --full --kernels dense.tcw \
  --filter '/M(512|1024)/'
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=tcw
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 1024 --bits 2,3 --dtypes f16"
}
BUDGET=$((BUDGET - 220)) MIN_LEFT=20 REPS=2 bench_rotation wholek2 main wk2
mkdir -p "$W/k5"
timeout -s INT 100 .deps/gpu/kbit-bench-main --shapes "$SHAPES" --git-commit "k5disp-main" --M 768,1024 --bits 5 \
  --dtypes f16 --kernels tcw,dequant_cublas,automatic --json "$W/k5/bench.json" --markdown "$W/k5/bench.md" \
  > "$W/k5/bench.txt" 2>&1
s "k5 dispatch bench rc=$? after $((SECONDS - T0)) s"
G=dense/llama-3-70b
for arm in main wk2; do
  [ "$(left)" -gt 15 ] || break
  mkdir -p "$W/ncu-$arm"
  VERIFY=.deps/gpu/kbit-verify-$arm OUT="$W/ncu-$arm" KREGEX='tcw_(streamk_)?kernel' \
    CASES="$G.attn.o_proj/N8192.K8192/M1024/k2/f16/tcw $G.mlp.gate_up/N57344.K8192/M1024/k2/f16/tcw" \
    timeout $(( $(left) - 3 )) bash bench/scripts/h100_pipe_util.sh > "$W/ncu-$arm.log" 2>&1
  s "ncu $arm rc=$? after $((SECONDS - T0)) s"
done
