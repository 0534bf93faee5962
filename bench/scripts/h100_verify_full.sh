#!/usr/bin/env bash
# Device-side script of 2026-11-22 (run from the repo root on the GPU machine; binaries in .deps/gpu,
# results under $OUT). See bench/results/2026-11-22-h100-kernels/README.md.
set -u
R=$PWD
cd .deps/gpu
V="./kbit-verify --full --threads 5 --shapes $R/data/shapes.json"
timeout 570 $V --kernels dense --filter '/f16/' --json "$OUT/full-dense-f16.json" --repro-dir "$OUT/repro-a" > "$OUT/full-dense-f16.txt" 2>&1 &
timeout 570 $V --kernels dense --filter '/bf16/' --json "$OUT/full-dense-bf16.json" --repro-dir "$OUT/repro-b" > "$OUT/full-dense-bf16.txt" 2>&1 &
timeout 570 $V --kernels moe,dequant --json "$OUT/full-moe-dequant.json" --repro-dir "$OUT/repro-c" > "$OUT/full-moe-dequant.txt" 2>&1 &
wait
for f in full-dense-f16 full-dense-bf16 full-moe-dequant; do
  echo "== $f"; grep -E "^\[.*fail" "$OUT/$f.txt" | head -3 | cut -c1-150
  sed -n '/^family.kernel/,/cases in/p' "$OUT/$f.txt"; grep -E "^\[" "$OUT/$f.txt" | tail -1 | cut -c1-60
done
