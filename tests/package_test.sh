#!/usr/bin/env bash
# Installs kbit from an existing build tree into a temporary prefix and builds + runs a consumer
# project against it (find_package(kbit), kbit::gpu). Usage: package_test.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
src=$(cd "$(dirname "$0")" && pwd)/package
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
cmake -S "$src" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CUDA_ARCHITECTURES=90 >"$work/configure.log" 2>&1 \
  || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"$work/build/consumer"
