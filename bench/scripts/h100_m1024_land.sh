#!/usr/bin/env bash
# Twenty-ninth session: choose_kernel's bound at M = 513..1024 (tcw from 40 M weights at k <= 4 with a
# cuBLAS handle, from the audit in bench/results/2026-11-27-h100-sk128land/ldisp), and an experiment arm,
# KBIT_TCW_MBAR_SK64K2=1 (k = 2's 64-token stream-K kernel on mbarriers, bounded to 128 registers so that
# an SM keeps two CTAs). One call, three builds side by side: old (HEAD before the dispatch change,
# .deps/old-src.txz), new (this tree) and k2 (this tree with the knob). The knob measured null and was
# removed after this call (bench/results/2026-11-27-h100-m1024): the k2 arm now builds the same as new.
# - new: the dispatch doctests; kbit-verify --full over dense.automatic at M = 1024 (its catalogue cases
#   include Llama-3-70B q_proj, o_proj, mlp.down, gate_up and Llama-3-8B gate_up), with and without --pdl.
# - k2: the stream-K doctests (exact mode, 4 CTAs, PDL), memcheck and racecheck over them.
# - disp/: kbit-bench old / new in rotation, 2 reps: automatic and automatic_pdl over dense at M = 512,
#   1024, k = 2..5.
# - k2/: kbit-bench new / k2 in rotation, 2 reps: tcw and tcw_pdl over dense at M = 64, k = 2.
# - mma/: kbit-bench on new, mma and tcw at M = 1024, k = 4, 5 over Llama-3-70B and -8B (dispatch's
#   alternative without a cuBLAS handle).
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz and
# .deps/old-src.txz. Env: ML_BUDGET (575 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/m1024" ${ML_BUDGET:-575}
device_sys || exit 1
if [ -x /tmp/ml-old/build/apps/kbit-bench/kbit-bench ] && [ -x /tmp/ml-k2/tests/kbit_tests_kernels ] && [ -x /tmp/ml-new/tests/kbit_tests_kernels ]; then
  s "builds kept from the previous call on this machine"  # (a warm machine: same tree)
  device_install /tmp/ml-new; cp /tmp/ml-old/build/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-old
else
device_build_old_start /tmp/ml
CUDA_FLAGS=-DKBIT_TCW_MBAR_SK64K2=1 device_build . /tmp/ml-k2 5 kbit-bench kbit_tests_kernels & k2_pid=$!
device_build . /tmp/ml-new 7 kbit-bench kbit-verify kbit_tests_kernels; rc=$?
wait $k2_pid; rc_k2=$?
s "builds: new rc=$rc, k2 rc=$rc_k2 after $((SECONDS - T0)) s"
[ $rc = 0 ] && [ $rc_k2 = 0 ] || { tail -n 20 /tmp/ml-new.log /tmp/ml-k2.log | tee -a "$W/summary.txt"; exit 1; }
device_install /tmp/ml-new
device_build_old_finish /tmp/ml || exit 1
fi
cp /tmp/ml-k2/apps/kbit-bench/kbit-bench .deps/gpu/kbit-bench-k2
gpu_info
doctest_filter '*prefill bounds*,*LinearArgs::pdl*,*dequantize refuses*' 90 'new: dispatch'
verify_run verify-pdl 60 3 "new: verify --full --pdl dense.automatic M = 1024" --full --pdl \
  --kernels dense.automatic --filter '/M1024/'
verify_run verify 60 3 "new: verify --full dense.automatic M = 1024" --full --kernels dense.automatic --filter '/M1024/'
# k2's doctest binary in place of new's for its checks (cwd .deps/gpu in doctest_filter and doctest_sanitize)
mv .deps/gpu/kbit_tests_kernels .deps/gpu/kbit_tests_kernels-new
cp /tmp/ml-k2/tests/kbit_tests_kernels .deps/gpu/kbit_tests_kernels
cp "$W/kernels.txt" "$W/kernels-new.txt"
doctest_filter '*stream-K*' 60 'k2: stream-K'
for tool in memcheck racecheck; do
  [ "$(left)" -gt 330 ] || { s "$tool skipped: $(left) s left"; continue; }
  doctest_sanitize $tool "*stream-K*" 60 k2
done
dense_catalogue "$W/dense"
W0=$W
W=$W0/disp; mkdir -p "$W"
arm_setup() {
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
  B="--M 512,1024 --bits 2,3,4,5 --dtypes f16"
}
BUDGET=$((BUDGET - 110)) MIN_LEFT=20 REPS=2 bench_rotation m1024 old new
cat "$W/summary.txt" >> "$W0/summary.txt"
W=$W0/k2; mkdir -p "$W"
arm_setup() {
  KERNELS=tcw,tcw_pdl
  case $1 in k2) BIN=.deps/gpu/kbit-bench-k2 ;; esac
  B="--M 64 --bits 2 --dtypes f16"
}
BUDGET=$((BUDGET - 40)) MIN_LEFT=10 REPS=2 bench_rotation sk64k2 new k2
cat "$W/summary.txt" >> "$W0/summary.txt"
W=$W0
mkdir -p "$W/mma"
timeout -s INT $(( $(left) - 3 )) .deps/gpu/kbit-bench --shapes "$SHAPES" --git-commit "m1024-mma" \
  --models llama-3-70b,llama-3-8b --M 1024 --bits 4,5 --dtypes f16 --kernels mma,tcw \
  --json "$W/mma/bench.json" > "$W/mma/bench.txt" 2>&1
s "mma bench rc=$? after $((SECONDS - T0)) s"
