#!/usr/bin/env bash
# The twenty-eighth session's last check: this tree with KBIT_TCW_MBAR=128 as the default (the mb128
# arm of -s28land, now main). One build; every GPU doctest; kbit-verify --quick --pdl over dense.tcw
# and dense.automatic, --full over dense.tcw at M = 64, 128; compute-sanitizer memcheck, racecheck and
# synccheck over random and adversarial tcw shapes at M = 128; then, with time left, kbit-bench tcw at
# M = 128, k = 2, 4 (one run, no A/B).
# Pack first with bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz. Env: SF_BUDGET (250 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/s28final" ${SF_BUDGET:-250}
device_build_new /tmp/sf kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
gpu_doctest kernels kbit_tests_kernels 60
verify_run verify-pdl 45 3 "verify --quick --pdl dense.tcw,dense.automatic" --quick --pdl --kernels dense.tcw,dense.automatic
verify_run verify-full 30 3 "verify --full dense.tcw M = 64, 128" --full --kernels dense.tcw --filter '/M(64|128)/'
verify_sanitize tcw 25 30 '(random|adversarial).*/M128/' memcheck racecheck synccheck
if [ "$(left)" -gt 20 ]; then
  dense_catalogue "$W/dense"
  timeout -s INT $(( $(left) - 5 )) .deps/gpu/kbit-bench --shapes "$SHAPES" --git-commit s28final --M 128 --bits 2,4 \
    --dtypes f16 --kernels tcw --json "$W/bench-m128.json" > "$W/bench-m128.txt" 2>&1
  s "bench tcw M = 128 rc=$? after $((SECONDS - T0)) s"
fi
