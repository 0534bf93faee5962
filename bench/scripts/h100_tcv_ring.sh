#!/usr/bin/env bash
# [Lost; the knob and the ring are not on main: apply bench/results/2026-11-27-h100-tcvring/ring.patch
# to rerun. The record is that folder.]
# Experiment (arms of one build, environment knob KBIT_TCV_RING): grouped_tcv's weights through a
# bulk-copy ring (cp.async.bulk into shared memory, one mbarrier per round of kw warp steps), every
# k-tile of the CTA requested by its first warp as soon as the work item is known, instead of one
# step ahead in registers (a round trip per step after the routing wait). Checks with the ring forced
# at kw = 1, 2, 4 (KBIT_TCV_RING=11, 12, 14): the MoE and grouped doctests, memcheck, racecheck and
# synccheck; kbit-verify --quick --pdl over the MoE kernels with the plan's rule (=1). Then kbit-bench
# reg (=0) / ring (=1) / ring4 (=14) in rotation: grouped_tcv and automatic_pdl over
# the MoE shapes of Qwen3-Coder-Next and GLM-4.7-Flash at M = 1, 2, 4, 8, k = 2..5. Pack first with
# bash bench/scripts/pack_device_build.sh. Env: RING_BUDGET (default 570 s), RING_CHECKS=0 (bench
# only), RING_RACE_S (seconds kept for racecheck after the bench, default 0).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvring ${RING_BUDGET:-570}
device_build_new /tmp/ringbuild kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
F='*MoE kernels equal*,*grouped_tcv*,*grouped kernels wait*,*replay from a captured*'
[ "${RING_CHECKS:-1}" = 1 ] && for m in 11 12 14; do
  (cd .deps/gpu && KBIT_TCV_RING=$m timeout 60 ./kbit_tests_kernels -tc="$F" > "$W/kernels-$m.txt" 2>&1)
  s "kernels ring=$m rc=$? after $((SECONDS - T0)) s"; grep -E 'assertions|Status' "$W/kernels-$m.txt" | tee -a "$W/summary.txt"
done
if [ "${RING_CHECKS:-1}" = 1 ]; then
  KBIT_TCV_RING=14 doctest_sanitize memcheck '*MoE kernels equal*,*grouped kernels wait*' 90 ring=14
  KBIT_TCV_RING=12 doctest_sanitize synccheck '*MoE kernels equal*' 60 ring=12
  VENV=KBIT_TCV_RING=1 verify_run verify-pdl 50 4 "ring=1: verify --quick --pdl moe" --quick --pdl --kernels moe
fi
moe_catalogue /tmp/tcvring-shapes
arm_setup() {
  KERNELS=grouped_tcv,automatic_pdl
  case $1 in ring) ENV=KBIT_TCV_RING=1 ;; ring4) ENV=KBIT_TCV_RING=14 ;; esac
  B="--M 1,2,4,8 --bits 2,3,4,5 --dtypes f16 --models qwen3-coder-next glm-4.7-flash"
}
BUDGET=$((BUDGET - ${RING_RACE_S:-0} - 10)) MIN_LEFT=20 REPS=2 bench_rotation tcvring reg ring ring4
BUDGET=$((BUDGET + ${RING_RACE_S:-0}))
# racecheck last (slow: 70 s did not finish the MoE doctest), with what is left
[ "${RING_RACE_S:-0}" -gt 0 ] && KBIT_TCV_RING=11 doctest_sanitize racecheck '*MoE kernels equal*' $(( $(left) - 5 )) ring=11
