# Building kbit on the GPU machine (sourced from the repo root there), for the calls whose binaries
# would not fit the working tree's size limit: CMake + ninja with the package files that
# bench/scripts/pack_device_build.sh copied into .deps/sys (carried as .deps/sys.txz).

# device_build SRC BUILD JOBS TARGET...: configure SRC into BUILD (Release, sm_90a, the headers of
# .deps/sys) and build the TARGETs with JOBS jobs; the log in BUILD.log. Returns cmake's status.
# CUDA_FLAGS: CMAKE_CUDA_FLAGS for the configure (an experiment arm's -D knobs; default none).
# device_sys: .deps/sys from its carried archive, once (before builds run side by side).
device_sys() { [ -d .deps/sys ] || tar xJf .deps/sys.txz -C .deps; }

device_build() {
  local src=$1 build=$2 jobs=$3
  shift 3
  device_sys || return 1
  { cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKBIT_CUDA_ARCHS=90a \
      -DCMAKE_PREFIX_PATH="$PWD/.deps/sys" ${CUDA_FLAGS:+-DCMAKE_CUDA_FLAGS="$CUDA_FLAGS"} &&
    cmake --build "$build" -j "$jobs" --target "$@"; } > "$build.log" 2>&1
}

# device_build_ab OLD_DIR NEW_DIR TARGET...: this tree into NEW_DIR and the old sources
# (.deps/old-src.txz, unpacked to OLD_DIR/src) into OLD_DIR/build, side by side, 8 jobs each; then
# .deps/gpu holds the new build's kbit-bench, kbit-verify and doctest binaries and kbit-bench-old.
# The times and status in the summary (s, lib/device_run.sh).
device_build_ab() {
  local old=$1 new=$2 t=$SECONDS rc_old rc_new
  shift 2
  mkdir -p "$old/src" && tar xJf .deps/old-src.txz -C "$old/src"
  device_sys || return 1
  device_build "$old/src" "$old/build" 8 kbit-bench & local pid=$!
  device_build . "$new" 8 "$@"; rc_new=$?
  wait $pid; rc_old=$?
  s "device build: new rc=$rc_new, old rc=$rc_old, $((SECONDS - t)) s ($(nvcc --version | tail -1))"
  [ $rc_new = 0 ] && [ $rc_old = 0 ] || { tail -n 20 "$new.log" "$old/build.log" | tee -a "$W/summary.txt"; return 1; }
  device_install "$new"
  cp "$old/build/apps/kbit-bench/kbit-bench" .deps/gpu/kbit-bench-old
}

# device_install BUILD: BUILD's kbit-bench, kbit-verify and the doctest binaries it has into .deps/gpu.
device_install() {
  mkdir -p .deps/gpu
  local f
  for f in apps/kbit-bench/kbit-bench apps/kbit-verify/kbit-verify; do [ -x "$1/$f" ] && cp "$1/$f" .deps/gpu/; done
  local b
  for b in kbit_tests_kernels kbit_tests_gpu; do [ -x "$1/tests/$b" ] && cp "$1/tests/$b" .deps/gpu/; done
  return 0
}

# device_build_new BUILD TARGET...: this tree alone into BUILD with 16 jobs, installed by
# device_install; the time and status in the summary. The record scripts' build.
device_build_new() {
  local build=$1 t=$SECONDS rc
  shift
  device_build . "$build" 16 "$@"; rc=$?
  s "device build: rc=$rc, $((SECONDS - t)) s ($(nvcc --version | tail -1))"
  [ $rc = 0 ] || { tail -n 20 "$build.log" | tee -a "$W/summary.txt"; return 1; }
  device_install "$build"
}

# device_build_knob_arms PREFIX ARM=FLAGS...: this tree built side by side into PREFIX-main (kbit-bench,
# kbit-verify, kbit_tests_kernels; 6 jobs) and into PREFIX-ARM per arm with FLAGS as CMAKE_CUDA_FLAGS
# (an experiment's -D knobs; kbit-bench and kbit-verify, 5 jobs each). Then main is installed
# (device_install, and also as kbit-bench-main and kbit-verify-main, so an arm_setup can name every arm
# the same way) and each arm's binaries go to .deps/gpu/kbit-bench-ARM and kbit-verify-ARM. The status
# and time in the summary; returns 1 (with the logs' tails) if any build failed.
device_build_knob_arms() {
  local prefix=$1 a p rc pids=()
  shift
  device_sys || return 1
  for a in "$@"; do
    CUDA_FLAGS="${a#*=}" device_build . "$prefix-${a%%=*}" 5 kbit-bench kbit-verify & pids+=($!)
  done
  device_build . "$prefix-main" 6 kbit-bench kbit-verify kbit_tests_kernels; rc=$?
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  s "builds (main${*:+ and }${*%%=*}) rc=$rc after $((SECONDS - T0)) s"
  if [ $rc != 0 ]; then
    for a in main "$@"; do tail -n 20 "$prefix-${a%%=*}.log"; done | tee -a "$W/summary.txt"
    return 1
  fi
  device_install "$prefix-main"
  cp "$prefix-main/apps/kbit-bench/kbit-bench" .deps/gpu/kbit-bench-main
  cp "$prefix-main/apps/kbit-verify/kbit-verify" .deps/gpu/kbit-verify-main
  for a in "$@"; do
    cp "$prefix-${a%%=*}/apps/kbit-bench/kbit-bench" ".deps/gpu/kbit-bench-${a%%=*}"
    cp "$prefix-${a%%=*}/apps/kbit-verify/kbit-verify" ".deps/gpu/kbit-verify-${a%%=*}"
  done
}

# device_build_old_start PREFIX: the old sources (.deps/old-src.txz) unpacked to PREFIX-old/src and
# built into PREFIX-old/build in the background (kbit-bench, 4 jobs), beside device_build_knob_arms;
# device_build_old_finish PREFIX waits for it and installs .deps/gpu/kbit-bench-old (returns 1 if the
# build failed).
device_build_old_start() {
  device_sys || return 1
  mkdir -p "$1-old/src" && tar xJf .deps/old-src.txz -C "$1-old/src"
  device_build "$1-old/src" "$1-old/build" 4 kbit-bench & OLD_BUILD_PID=$!
}
device_build_old_finish() {
  wait "$OLD_BUILD_PID"; local rc=$?
  s "old build rc=$rc after $((SECONDS - T0)) s"
  [ $rc = 0 ] || { tail -n 20 "$1-old/build.log" | tee -a "$W/summary.txt"; return 1; }
  cp "$1-old/build/apps/kbit-bench/kbit-bench" .deps/gpu/kbit-bench-old
}
