#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan, CUDA off) in ./build-fuzz and runs the
# safetensors header fuzzer for a bounded time. Exit 0: no finding; non-zero: a crash, sanitizer
# report or broken invariant (the reproducer is build-fuzz/crash-* / leak-* / timeout-*).
# Usage: bash scripts/fuzz.sh [seconds]   (default 60; scripts/test.sh runs it after ctest)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"

# clang and its libFuzzer runtime (Debian: libclang_rt.fuzzer comes in libclang-rt-14-dev, which
# clang only recommends). Installed here rather than by setup.sh: the main job does not need them.
source scripts/lib/apt.sh
ensure_packages fuzz clang libclang-rt-14-dev
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe/p.cpp"
if ! clang++ -fsanitize=fuzzer "$probe/p.cpp" -o "$probe/p" 2>"$probe/err"; then
  cat "$probe/err"
  echo "fuzz: clang++ -fsanitize=fuzzer does not link (libclang-rt-14-dev missing?)" >&2
  exit 1
fi

mkdir -p build-fuzz
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DKBIT_ENABLE_CUDA=OFF -DKBIT_BUILD_FUZZERS=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
  >build-fuzz/configure.log 2>&1 || { cat build-fuzz/configure.log; exit 1; }
cmake --build build-fuzz -j"$(nproc)" --target fuzz_safetensors_header

# New inputs go to build-fuzz/corpus; the committed seeds in tests/fuzz/corpus are read only.
mkdir -p build-fuzz/corpus
echo "fuzz: parse_header for ${seconds} s"
./build-fuzz/tests/fuzz/fuzz_safetensors_header build-fuzz/corpus tests/fuzz/corpus \
  -dict=tests/fuzz/safetensors.dict -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -rss_limit_mb=2048 -artifact_prefix=build-fuzz/ -print_final_stats=1 2>build-fuzz/fuzz.log \
  || { tail -n 60 build-fuzz/fuzz.log; echo "fuzz: FAILED (reproducer above, in build-fuzz/)" >&2; exit 1; }
grep -E '^stat::number_of_executed_units|^Done' build-fuzz/fuzz.log || true
echo "fuzz: PASS (no crash, sanitizer report or broken invariant)"
