#!/usr/bin/env bash
# The main job on the bundled default data: set up, build, run kbit-selfcheck.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
./build/apps/kbit-selfcheck "$@"
