# Shared by the h100_pdl_*.sh device scripts (sourced from the repo root on the GPU machine): a
# working folder whose contents land in $OUT/run.tar.gz on any exit, a summary logger, the time
# budget, and the checks every PDL call ran first.

# device_run_init DIR DEFAULT_BUDGET: sets R (repo root), T0, BUDGET (the environment's wins),
# W=DIR (emptied), V (kbit-verify with the shapes catalogue) and the exit trap.
device_run_init() {
  R=$PWD; T0=$SECONDS; BUDGET=${BUDGET:-$2}
  W=$1; rm -rf "$W"; mkdir -p "$W"
  V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
  trap device_run_finish EXIT
}
device_run_finish() { tar -C "$W" -czf "$OUT/run.tar.gz" . ; cp "$W/summary.txt" "$OUT/" 2>/dev/null; }
# s TEXT: print and append to summary.txt; left: seconds of the budget left.
s() { echo "$*" | tee -a "$W/summary.txt"; }
left() { echo $((BUDGET - (SECONDS - T0))); }

# pdl_doctest_checks KERNELS_S MEMCHECK_S RACECHECK_S: the GPU and its clocks, gpu.kernels, then
# compute-sanitizer memcheck and racecheck over the PDL doctests, each under its timeout.
pdl_doctest_checks() {
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$W/summary.txt"
  (cd .deps/gpu && timeout "$1" ./kbit_tests_kernels > "$W/kernels.txt" 2>&1); s "kernels rc=$? after $((SECONDS - T0)) s"
  grep -E "assertions|Status|pdl|programmatic|ERROR" "$W/kernels.txt" | head -20 | tee -a "$W/summary.txt"
  local tool t
  for tool in memcheck racecheck; do
    t=$2; [ $tool = racecheck ] && t=$3
    (cd .deps/gpu && timeout "$t" compute-sanitizer --tool $tool --error-exitcode 9 ./kbit_tests_kernels -tc='*pdl*' \
      > "$W/$tool.txt" 2>&1); s "$tool pdl doctests rc=$? after $((SECONDS - T0)) s"
    tail -3 "$W/$tool.txt" | tee -a "$W/summary.txt"
  done
}
