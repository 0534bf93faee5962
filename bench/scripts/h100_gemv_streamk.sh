#!/usr/bin/env bash
# gemv stream-K (grids of more than one wave: all resident CTAs split the k-tile units evenly, partial
# tiles added up by their last CTA), one call: GPU doctests (kernels + format), compute-sanitizer
# memcheck and racecheck over the stream-K and split-K doctests, kbit-verify --quick on gemv +
# automatic and --full on Llama-3-70B gate_up (the catalogue's multi-wave shape) with stream-K on
# (KBIT_GEMV_ARM=sk), then kbit-bench gemv A/B over Llama-3-70B at M = 1..4, k = 2..5, f16 in
# rotation: main (the landed plan), sk (stream-K, and the k = 4 pair table at M = 1 on it too),
# skfloat (stream-K, the pair-table rule as landed); KBIT_GEMV_ARM was a temporary switch in
# kernels/gemv.cu for these runs. With time left, ncu of the three on gate_up M = 1, k = 4.
# Env: SK_B (sweep flags), SK_REPS (default 3), SK_ARMS, SK_BUDGET (default 480 s).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gemvsk ${SK_BUDGET:-480}
gpu_info
gpu_doctest format kbit_tests_gpu 30
if gpu_doctest kernels kbit_tests_kernels 90; then
  for tool in memcheck racecheck; do
    f='*stream-K kernel*,*split-K equal*,*pair table*'
    [ $tool = racecheck ] && f='*stream-K kernel*'
    doctest_sanitize $tool "$f" 150
  done
fi
if [ -x .deps/gpu/kbit-verify ]; then
  KBIT_GEMV_ARM=sk timeout 100 "${V[@]}" --quick --kernels gemv,automatic > "$W/verify.txt" 2>&1
  s "verify --quick gemv,automatic (KBIT_GEMV_ARM=sk) rc=$? after $((SECONDS - T0)) s"; tail -6 "$W/verify.txt" | tee -a "$W/summary.txt"
  KBIT_GEMV_ARM=sk timeout 100 "${V[@]}" --full --kernels gemv --filter 'llama-3-70b.mlp.gate_up.*/M[1-4]/k[2-5]/f16' > "$W/verify-gateup.txt" 2>&1
  s "verify --full gemv 70B gate_up M=1..4 k=2..5 f16 (KBIT_GEMV_ARM=sk) rc=$? after $((SECONDS - T0)) s"; tail -6 "$W/verify-gateup.txt" | tee -a "$W/summary.txt"
fi
B="${SK_B:---models llama-3-70b --M 1,2,3,4 --bits 2,3,4,5 --dtypes f16}"
arm_setup() { KERNELS=gemv; ENV=KBIT_GEMV_ARM=$1; }
REPS=${SK_REPS:-3} MIN_LEFT=20 bench_rotation gemvsk ${SK_ARMS:-main sk skfloat}
# The PDL dispatch at M = 2 (tcw on 8 M .. 100 M weights of K >= 4096) against gemv with the pair
# table, PDL launches on both sides, twice.
for i in 1 2; do
  timeout 60 .deps/gpu/kbit-bench --shapes "$R/data/shapes.json" --git-commit gemvsk-pdl --models llama-3-8b llama-3-70b \
    glm-4.7-flash --M 2 --bits 4 --dtypes f16 --kernels gemv_pdl,tcw_pdl,automatic_pdl --json "$W/pdl-$i.json" > "$W/pdl-$i.txt" 2>&1
  s "bench pdl M=2 $i rc=$? after $((SECONDS - T0)) s"
done
l=$(left)
if [ "$l" -gt 40 ] && [ -x .deps/gpu/kbit-verify ]; then
  for arm in main sk skfloat; do
    mkdir -p "$W/ncu-$arm"
    KBIT_GEMV_ARM=$arm OUT=$W/ncu-$arm NCU_KERNELS='gemv_kernel|gemv_streamk_kernel' timeout $(( $(left) / 2 )) \
      bash bench/scripts/h100_ncu_profile.sh "dense/llama-3-70b.mlp.gate_up/N57344.K8192/M1/k4/f16/gemv" > "$W/ncu-$arm.log" 2>&1
    s "ncu $arm rc=$? after $((SECONDS - T0)) s"
  done
fi
