#!/usr/bin/env bash
# Check call of the review mends to gemv's staged form (the opt-in fallback, gemv_staged_seen, deeper
# and PDL-mode test coverage, the staged form under PDL on early grids only), with a diagnostic: the
# same tree without that last restriction (.deps/old-src.txz, packed from a stash; never committed)
# runs the PDL doctest, whose 16960 x 992 case failed with the staged grid that triggers after its
# main loop, once plainly and once with CUDA_LAUNCH_BLOCKING=1. Both builds on the GPU machine (pack
# first with bash bench/scripts/pack_device_build.sh). This tree: the kernel GPU doctests, memcheck
# over the staged and PDL doctests, racecheck over the staged ones. Env: SM_BUDGET (default 300 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/stagedmends ${SM_BUDGET:-300}
mkdir -p /tmp/smvar/src && tar xJf .deps/old-src.txz -C /tmp/smvar/src
device_sys
device_build /tmp/smvar/src /tmp/smvar/build 8 kbit_tests_kernels & pid=$!
device_build . /tmp/smnew 8 kbit_tests_kernels; rc=$?
wait $pid; rcv=$?
s "device build: new rc=$rc, variant rc=$rcv after $((SECONDS - T0)) s"
[ $rc = 0 ] || { tail -20 /tmp/smnew.log | tee -a "$W/summary.txt"; exit 1; }
device_install /tmp/smnew
doctest_checks 120 '*staged*,*LinearArgs::pdl*' 90 '*staged*' 60
if [ $rcv = 0 ]; then
  V=/tmp/smvar/build/tests/kbit_tests_kernels
  (timeout 60 $V -tc='*LinearArgs::pdl the kernels wait*' > "$W/variant.txt" 2>&1); s "variant pdl rc=$? after $((SECONDS - T0)) s"
  grep -E "logged|assertions" "$W/variant.txt" | head -14 | tee -a "$W/summary.txt"
  (CUDA_LAUNCH_BLOCKING=1 timeout 60 $V -tc='*LinearArgs::pdl the kernels wait*' > "$W/variant-blocking.txt" 2>&1)
  s "variant pdl, CUDA_LAUNCH_BLOCKING=1, rc=$? after $((SECONDS - T0)) s"
  grep -E "logged|assertions" "$W/variant-blocking.txt" | head -6 | tee -a "$W/summary.txt"
fi
