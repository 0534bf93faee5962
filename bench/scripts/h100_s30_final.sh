#!/usr/bin/env bash
# The thirtieth session's last check: this tree (tcw's whole-tile runs on the stream-K kernel at k >= 4,
# K >= 2048, from 128-token tiles). One build; every GPU doctest (kernels and format); kbit-verify
# --quick --pdl over dense.tcw and dense.automatic, --full over dense.automatic at M = 512, 1024 with
# cuBLAS and without; memcheck, racecheck and synccheck over the random and adversarial tcw shapes at
# M = 1024; then, with time left, kbit-bench automatic at M = 256, 512, 1024, k = 4 (one run: the block
# TOTALs).
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: SF_BUDGET (330 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/s30final" ${SF_BUDGET:-330}
device_build_new /tmp/sf kbit-bench kbit-verify kbit_tests_kernels kbit_tests_gpu || exit 1
gpu_info
gpu_doctest format kbit_tests_gpu 30
gpu_doctest kernels kbit_tests_kernels 90
verify_run verify-pdl 45 3 "verify --quick --pdl dense.tcw,dense.automatic" --quick --pdl --kernels dense.tcw,dense.automatic
verify_run verify-full 45 3 "verify --full dense.automatic M = 512, 1024" --full --kernels dense.automatic --filter '/M(512|1024)/'
verify_run verify-nocublas 45 3 "verify --full --no-cublas dense.automatic M = 512, 1024" --full --no-cublas \
  --kernels dense.automatic --filter '/M(512|1024)/'
verify_sanitize tcw 60 40 '(random|adversarial).*/M1024/' memcheck racecheck synccheck
if [ "$(left)" -gt 20 ]; then
  dense_catalogue "$W/dense"
  timeout -s INT $(( $(left) - 5 )) .deps/gpu/kbit-bench --shapes "$SHAPES" --git-commit s30final --M 256,512,1024 --bits 4 \
    --dtypes f16 --kernels automatic --json "$W/bench.json" --markdown "$W/bench.md" > "$W/bench.txt" 2>&1
  s "bench automatic M = 256, 512, 1024 rc=$? after $((SECONDS - T0)) s"
fi
