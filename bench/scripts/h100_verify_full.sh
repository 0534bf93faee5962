#!/usr/bin/env bash
# kbit-verify --full on the GPU machine, as four processes of 4 CPU threads each (the CPU reference
# is the bottleneck): dense f16, dense bf16, moe, dequant. Run from the repo root, binaries in
# .deps/gpu, results under $OUT; LIMIT (default 560) seconds per process. A process cut by the limit
# leaves its completed cases in its log; resume with --range A: on the same list.
set -u
R=$PWD
LIMIT=${LIMIT:-560}
cd .deps/gpu
V="./kbit-verify --full --threads 4 --shapes $R/data/shapes.json"
run() {  # tag, kbit-verify selection...
  local tag=$1; shift
  timeout "$LIMIT" $V "$@" --json "$OUT/full-$tag.json" --repro-dir "$OUT/repro-$tag" > "$OUT/full-$tag.txt" 2>&1
  echo "rc=$?" >> "$OUT/full-$tag.txt"
}
run dense-f16 --kernels dense --filter '/f16/' &
run dense-bf16 --kernels dense --filter '/bf16/' &
run moe --kernels moe &
run dequant --kernels dequant &
wait
for f in dense-f16 dense-bf16 moe dequant; do
  echo "== $f: $(grep -cE '^\[ *[0-9]+/' "$OUT/full-$f.txt") case lines, $(tail -1 "$OUT/full-$f.txt")"
  grep -E "^\[.*\] fail" "$OUT/full-$f.txt" | head -3 | cut -c1-150
  sed -n '/^family.kernel/,/cases in/p' "$OUT/full-$f.txt"
done
gzip -9 "$OUT"/full-*.txt "$OUT"/full-*.json 2>/dev/null
