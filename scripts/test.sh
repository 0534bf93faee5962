#!/usr/bin/env bash
# Set up, build and run the whole test suite (GPU tests report "skipped" without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd build && ctest --output-on-failure -j"$(nproc)"
