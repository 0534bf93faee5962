#!/usr/bin/env bash
# The checks after a behaviour-unchanged mend of tcv's launch dispatch (with_decode) and the one-hot
# doctests' expected values (decoded_w), one call: gpu.kernels, compute-sanitizer memcheck over the
# one-hot decode doctests (dense and grouped) and the MoE equality doctest, kbit-verify --quick over
# tcv, grouped_tcv and automatic (dense and MoE). Binaries in .deps/gpu (kbit_tests_kernels,
# kbit-verify). Env: MEND_BUDGET (default 300 s).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/mendcheck ${MEND_BUDGET:-300}
gpu_info
if gpu_doctest kernels kbit_tests_kernels 120; then
  doctest_sanitize memcheck '*documented W*,*moe_weight_roundings*,*MoE kernels equal*' 200
fi
verify_run verify 150 8 "verify --quick tcv,grouped_tcv,automatic" --quick --kernels tcv,grouped_tcv,automatic
