#!/usr/bin/env bash
# Thirty-seventh session, first call (branch exp/tcw-timeline; its default build equals main's kernels, tcw.cu cubin
# byte-identical): (1) main's unrun host changes -- every kernel GPU doctest of the default build, then racecheck over
# the forced-tile doctest at 224 tokens whole (KBIT_TEST_TCW_TILES=224); (2) the timeline build
# (-DKBIT_TCW_TIMELINE=1) and its doctest, summarized by bench/scripts/tcw_timeline.py; (3) ncu pipes and stalls on
# tcw at Llama-3-8B q_proj M = 288, k = 4, if time is left. The two builds run side by side, 8 jobs each.
# Pack first; carry .deps/sys.txz. Env: BUDGET (560 s).
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init "$OUT/tlc" 560
device_sys || exit 1
CUDA_FLAGS=-DKBIT_TCW_TIMELINE=1 device_build . /tmp/tt 8 kbit_tests_kernels & tpid=$!
device_build . /tmp/main 8 kbit-verify kbit_tests_kernels; rc=$?
wait $tpid; rct=$?
s "builds: main rc=$rc, timeline rc=$rct, $((SECONDS - T0)) s"
[ $rc = 0 ] || { tail -20 /tmp/main.log | tee -a "$W/summary.txt"; exit 1; }
device_install /tmp/main
gpu_info
gpu_doctest kernels kbit_tests_kernels 150
if [ $rct = 0 ]; then
  (cd /tmp/tt/tests && KBIT_TCW_TIMELINE_OUT=$W/timeline.csv timeout 120 ./kbit_tests_kernels -tc='*timeline*' \
    > "$W/kernels-timeline.txt" 2>&1)
  s "timeline doctest rc=$? after $((SECONDS - T0)) s"
  grep -E "assertions|Status|ERROR" "$W/kernels-timeline.txt" | head -8 | tee -a "$W/summary.txt"
  [ -s "$W/timeline.csv" ] && python3 bench/scripts/tcw_timeline.py "$W/timeline.csv" > "$W/timeline.txt" 2>&1
  s "timeline.py rc=$?"; head -60 "$W/timeline.txt" | tee -a "$W/summary.txt"
  [ -s "$W/timeline.csv" ] && gzip -9 "$W/timeline.csv"
else
  tail -20 /tmp/tt.log | tee -a "$W/summary.txt"
fi
KBIT_TEST_TCW_TILES=224 doctest_sanitize racecheck '*token tiles*' $(( $(left) - 70 )) KBIT_TEST_TCW_TILES=224
if [ "$(left)" -gt 60 ]; then
  mkdir -p "$W/ncu"
  CASES=dense/llama-3-8b.attn.q_proj/N4096.K4096/M288/k4/f16/tcw KREGEX='tcw_(streamk_)?kernel' OUT="$W/ncu" \
    timeout $(( $(left) - 15 )) bash bench/scripts/h100_pipe_util.sh > "$W/ncu.log" 2>&1
  s "ncu rc=$? after $((SECONDS - T0)) s"
fi
rm -rf /tmp/tt/lib /tmp/tt/kernels 2>/dev/null; true
