#!/usr/bin/env bash
# The twenty-ninth session's last check: this tree (KBIT_TCW_MBAR_SK=128, choose_kernel's 513..1024 bounds
# with and without a cuBLAS handle). One build; every GPU doctest; kbit-verify --quick --pdl over dense.tcw
# and dense.automatic, --full over dense.automatic at M = 512, 1024 with cuBLAS and without (--no-cublas:
# dispatch's other branch); memcheck, racecheck and synccheck over random and adversarial tcw shapes at
# M = 256; then, with time left, kbit-bench automatic and automatic_pdl at M = 256, 1024, k = 4 (one run).
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: SF_BUDGET (250 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/s29final" ${SF_BUDGET:-250}
device_build_new /tmp/sf kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 60
verify_run verify-pdl 45 3 "verify --quick --pdl dense.tcw,dense.automatic" --quick --pdl --kernels dense.tcw,dense.automatic
verify_run verify-full 45 3 "verify --full dense.automatic M = 512, 1024" --full --kernels dense.automatic --filter '/M(512|1024)/'
verify_run verify-nocublas 45 3 "verify --full --no-cublas dense.automatic M = 512, 1024" --full --no-cublas \
  --kernels dense.automatic --filter '/M(512|1024)/'
verify_sanitize tcw 25 30 '(random|adversarial).*/M256/' memcheck racecheck synccheck
if [ "$(left)" -gt 20 ]; then
  dense_catalogue "$W/dense"
  timeout -s INT $(( $(left) - 5 )) .deps/gpu/kbit-bench --shapes "$SHAPES" --git-commit s29final --M 256,1024 --bits 4 \
    --dtypes f16 --kernels automatic,automatic_pdl --json "$W/bench.json" --markdown "$W/bench.md" > "$W/bench.txt" 2>&1
  s "bench automatic M = 256, 1024 rc=$? after $((SECONDS - T0)) s"
fi
