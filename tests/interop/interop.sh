#!/usr/bin/env bash
# ctest driver (interop.safetensors): writes every kbit-make-testdata family (BF16, F16, F32,
# sharded) with our Writer, dumps our reader's view (kbit-st-manifest) and has the Python
# safetensors package check each against it; also the bundled data/tiny-qwen3-moe. A tampered
# manifest must make the check fail, so the comparison is known to bite.
# Usage: interop.sh MAKE_TESTDATA ST_MANIFEST WORK_DIR DATA_DIR [KBIT_QUANTIZE]. Exit 77 (skip) without
# the packages. With KBIT_QUANTIZE, its output for data/tiny-qwen3-moe is checked too.
set -euo pipefail
make_testdata="$1" st_manifest="$2" work="$3" data="$4"
here="$(cd "$(dirname "$0")" && pwd)"
if ! python3 -c "import safetensors, numpy" 2>/dev/null; then
  echo "SKIP: python3 cannot import safetensors and numpy (scripts/setup.sh installs them when PyPI is reachable)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
check() {  # check PATH: our manifest of PATH, then the Python comparison
  "$st_manifest" "$1" "$work/manifest.json"
  python3 "$here/check_safetensors.py" "$1" "$work/manifest.json"
}
for model in llama qwen3-moe qwen3-moe-fused gpt-oss glm4-moe qwen3-tied; do
  "$make_testdata" --model "$model" -o "$work/$model" >/dev/null
  check "$work/$model"
done
"$make_testdata" --model glm4-moe --sharded 3 --dtype F16 -o "$work/glm-f16-sharded" >/dev/null
check "$work/glm-f16-sharded"
"$make_testdata" --model gpt-oss --dtype F32 -o "$work/oss-f32" >/dev/null
check "$work/oss-f32/model.safetensors"
check "$data/tiny-qwen3-moe"
# Our kbit output (FORMAT §7: I32 packed, U8 absmax, F32 codebook, kbit.* metadata, the index).
if [ -n "${5:-}" ]; then
  "$5" "$data/tiny-qwen3-moe" "$work/tiny-k3" --bits 3 --quiet >/dev/null
  check "$work/tiny-k3"
  python3 - "$work/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
ts = {t["name"]: t for f in m["files"] for t in f["tensors"]}
packed = [n for n in ts if n.endswith(".kbit_packed")]
assert packed, "no .kbit_packed tensors in the kbit-quantize output"
for n in packed:
    base = n[: -len(".kbit_packed")]
    assert ts[n]["dtype"] == "I32" and ts[n]["shape"][-1] == 3, (n, ts[n]["dtype"], ts[n]["shape"])
    assert ts[base + ".kbit_absmax"]["dtype"] == "U8", base
    assert ts[base + ".kbit_codebook"]["dtype"] == "F32" and ts[base + ".kbit_codebook"]["shape"] == [8], base
print(f"interop: kbit-quantize output: {len(packed)} quantized tensors with FORMAT §7 dtypes and shapes")
PY
fi

# Negative control: one changed CRC in the manifest must fail the check.
"$st_manifest" "$work/llama" "$work/manifest.json"
python3 - "$work/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["files"][0]["tensors"][0]["crc32"] ^= 1
json.dump(m, open(sys.argv[1], "w"))
PY
if python3 "$here/check_safetensors.py" "$work/llama" "$work/manifest.json" >"$work/negative.log"; then
  echo "FAIL: a tampered manifest passed the check"; cat "$work/negative.log"; exit 1
fi
grep -q "bytes differ" "$work/negative.log" || { echo "FAIL: tampered manifest not reported as a byte difference"; cat "$work/negative.log"; exit 1; }
echo "interop: PASS (and a tampered manifest is caught)"
