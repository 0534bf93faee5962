#!/usr/bin/env bash
# Set up, build and run the whole test suite (GPU tests report "skipped" without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd build && ctest --output-on-failure -j"$(nproc)"
# Bounded libFuzzer run on the safetensors header parser (clang + ASan/UBSan, build-fuzz/).
cd .. && bash scripts/fuzz.sh 60
