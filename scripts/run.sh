#!/usr/bin/env bash
# The main job on the bundled default data: set up, build, run kbit-selfcheck (format core), then
# kbit-quantize on data/tiny-qwen3-moe into out/tiny-qwen3-moe-k4 and its check against the source.
# Extra arguments go to kbit-quantize (e.g. --bits 3, --encoder bnb).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
./build/apps/kbit-selfcheck
if [ -d data/tiny-qwen3-moe ]; then
  mkdir -p out
  ./build/apps/kbit-quantize data/tiny-qwen3-moe out/tiny-qwen3-moe-k4 --overwrite "$@"
  ./build/apps/kbit-quantize check out/tiny-qwen3-moe-k4 --source data/tiny-qwen3-moe
else
  echo "run: data/tiny-qwen3-moe is missing; skipped kbit-quantize"
fi
