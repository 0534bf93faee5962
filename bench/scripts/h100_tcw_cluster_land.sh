#!/usr/bin/env bash
# Thirty-fourth session: the landing check of tcw's cluster slices by default (KBIT_TCW_CLUSTER = 2,
# KBIT_TCW_CLUSTER_MINB = 4 MB: plans of 2 slices with >= 4 MB of fp32 partials run tcw_kernel<..., CL = true>,
# whose slices sum through distributed shared memory; bench/results/2026-11-27-h100-cluster, -cluster2). Arms built
# side by side: main (this tree) and off (-DKBIT_TCW_CLUSTER=0: no cluster launch; its kernels SASS-identical to
# main's CL = false kernels and to the tree before the cluster code).
# On main: every kernel GPU doctest (the forced cluster plan, bit for bit); memcheck and racecheck over the cluster
# doctest; kbit-verify --quick --pdl over dense.tcw, --full and --full --pdl over dense.tcw and dense.automatic at
# M = 256, 512; memcheck, racecheck and synccheck of named cluster rows (plain and --pdl). Then kbit-bench
# automatic_pdl and tcw, off / main in rotation, two reps, dense catalogue, M = 128, 256, 512, k = 2..5.
# Predicted: the rows of 2-slice plans with >= 4 MB of partials 1.05-1.30x, the rest 1.00x.
# Pack first; carry .deps/sys.txz. Env: CL_BUDGET (575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/clland" ${CL_BUDGET:-575}
device_build_knob_arms /tmp/cz "off=-DKBIT_TCW_CLUSTER=0" || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 90
doctest_sanitize memcheck '*clusters equal*' 60
doctest_sanitize racecheck '*clusters equal*' 90
verify_run verify-quick-pdl 60 3 "verify --quick --pdl dense.tcw" --quick --pdl --kernels dense.tcw
verify_run verify-full 90 3 "verify --full dense.tcw,dense.automatic M = 256, 512" --full \
  --kernels dense.tcw,dense.automatic --filter '/M(256|512)/'
verify_run verify-full-pdl 90 3 "verify --full --pdl dense.tcw,dense.automatic M = 256, 512" --full --pdl \
  --kernels dense.tcw,dense.automatic --filter '/M(256|512)/'
for c in qwen3-coder-next.attn.q_proj/N4096.K2048/M256 llama-3-8b.attn.o_proj/N4096.K4096/M512 \
         llama-3-70b.attn.o_proj/N8192.K8192/M256; do
  for pdl in "" --pdl; do
    for tool in memcheck racecheck synccheck; do
      [ "$(left)" -gt 230 ] || continue
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "${V[@]}" --case "dense/$c/k4/f16/tcw" $pdl --no-cublas \
        --no-exact --no-rerun > "$W/$tool-row.txt" 2>&1
      s "$tool $c k4 tcw $pdl rc=$? after $((SECONDS - T0)) s"; tail -1 "$W/$tool-row.txt" | tee -a "$W/summary.txt"
    done
  done
done
dense_catalogue "$W/dense"
arm_setup() {
  KERNELS=automatic_pdl,tcw
  BIN=.deps/gpu/kbit-bench-$1
  B="--M 128,256,512 --bits 2,3,4,5 --dtypes f16"
}
MIN_LEFT=20 REPS=2 bench_rotation clland off main
rm -rf /tmp/cz-*/lib /tmp/cz-*/kernels 2>/dev/null; true
