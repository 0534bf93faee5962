# Shared by h100_racecheck_sharded.sh and h100_racecheck_queue.sh (sourced): the racecheck run of
# one piece of the kbit-verify --quick --no-cublas sweep, the load monitor, and the log counters.
# Expects R (repo root) and flags (extra kbit-verify options) to be set by the caller.

# racecheck_run SECONDS SHARD RANGE REPRO_DIR LOG: one sanitized kbit-verify process, one CPU thread.
racecheck_run() {
  timeout "$1" compute-sanitizer --tool racecheck --error-exitcode 9 --print-limit 100000 \
    .deps/gpu/kbit-verify --quick --no-cublas $flags --threads 1 --shard "$2" --range "$3" \
    --shapes "$R/data/shapes.json" --repro-dir "$4" > "$5" 2>&1
}

# GPU utilization and host load every 15 s into FILE (is the sanitized sweep GPU- or CPU-bound?);
# sets mon to the monitor's pid.
start_load_monitor() {
  ( while sleep 15; do
      echo "$(date +%T) gpu $(nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader) load $(cut -d' ' -f1 /proc/loadavg)"
    done > "$1" ) &
  mon=$!
}

# Cases a log finished: kbit-verify prints one "[  i/n] status name ..." line per case (stdout is
# not a terminal). racecheck prints each report as the racing kernel ends, so these cases were
# reported on even when a timeout killed the process before its RACECHECK SUMMARY.
log_cases_done() { grep -cE '^\[ *[0-9]+/[0-9]+\] ' "$1"; }
log_cases_failed() { grep -cE '^\[ *[0-9]+/[0-9]+\] fail' "$1"; }
# The hazard count of the RACECHECK SUMMARY line (empty when there is none).
log_hazards() { grep -E 'RACECHECK SUMMARY' "$1" | grep -oE '[0-9]+ hazard' | grep -oE '[0-9]+' | head -1; }
# Race reports printed as they happened (counts also for a process cut before its summary).
log_race_reports() { grep -cE '^========= +(Error|Warning): .*(Race|hazard)' "$1"; }
# The first sanitizer, CUDA or kbit-verify errors of a log, indented with PREFIX.
log_errors() { grep -m"$2" -E "Internal Sanitizer Error|CUDA error|^kbit-verify: " "$1" | grep -v ' cases on ' | sed "s|^|$3|"; }
