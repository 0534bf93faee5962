#!/usr/bin/env python3
"""Checks a safetensors file or checkpoint directory with the Python `safetensors` package (the
reference implementation) against a manifest of what our reader sees (tests/interop/st_manifest.cpp):
the reference must accept every file, and names, dtypes, shapes, metadata, the index's weight_map and
every tensor's bytes (CRC-32) must agree.

    check_safetensors.py PATH MANIFEST.json     PATH: a .safetensors file or a checkpoint directory

Exit 0: all equal. 1: a difference (each printed). 2: usage or unreadable input.
77: the safetensors or numpy package is missing (ctest reports the test as skipped).
"""
import json
import os
import sys
import zlib

try:
    import numpy  # noqa: F401  (safe_open's "numpy" framework needs it)
    import safetensors
    from safetensors import safe_open
except ImportError as e:
    print(f"SKIP: Python packages for the interop check are missing ({e}); "
          "install them with: python3 -m pip install safetensors numpy")
    sys.exit(77)

# Above this size the raw-bytes path (safetensors.deserialize reads the whole file) is skipped
# for dtypes numpy cannot hold (BF16, F8_*); numpy-typed tensors are still compared.
DESERIALIZE_LIMIT = 1 << 30


def check_file(path, entry, problems):
    want = {t["name"]: t for t in entry["tensors"]}
    name = os.path.basename(path)
    with safe_open(path, framework="numpy") as f:
        got_names = set(f.keys())
        if got_names != set(want):
            problems.append(f"{name}: tensor names differ: only ours {sorted(set(want) - got_names)[:5]}, "
                            f"only safetensors {sorted(got_names - set(want))[:5]}")
        meta = f.metadata() or {}
        if meta != entry["metadata"]:
            problems.append(f"{name}: __metadata__ differs: safetensors {meta} vs ours {entry['metadata']}")
        raw = None
        compared = 0
        for n in sorted(got_names & set(want)):
            t = want[n]
            sl = f.get_slice(n)
            if sl.get_dtype() != t["dtype"]:
                problems.append(f"{name}: tensor {n}: dtype {sl.get_dtype()} vs ours {t['dtype']}")
            if list(sl.get_shape()) != t["shape"]:
                problems.append(f"{name}: tensor {n}: shape {sl.get_shape()} vs ours {t['shape']}")
            try:
                data = f.get_tensor(n).tobytes()
            except (TypeError, ValueError):  # a dtype numpy lacks: take the raw bytes instead
                if raw is None:
                    if os.path.getsize(path) > DESERIALIZE_LIMIT:
                        continue
                    with open(path, "rb") as fh:
                        raw = {k: bytes(v["data"]) for k, v in safetensors.deserialize(fh.read())}
                data = raw[n]
            crc = zlib.crc32(data) & 0xFFFFFFFF
            begin, end = t["data_offsets"]
            if len(data) != end - begin:
                problems.append(f"{name}: tensor {n}: {len(data)} bytes vs ours {end - begin}")
            elif crc != t["crc32"]:
                problems.append(f"{name}: tensor {n}: bytes differ (crc32 {crc:08x} vs ours {t['crc32']:08x})")
            compared += 1
    return compared


def main():
    if len(sys.argv) != 3:
        print("usage: check_safetensors.py PATH MANIFEST.json", file=sys.stderr)
        return 2
    path, manifest_path = sys.argv[1], sys.argv[2]
    try:
        with open(manifest_path) as fh:
            manifest = json.load(fh)
    except (OSError, ValueError) as e:
        print(f"{manifest_path}: cannot read the manifest: {e}", file=sys.stderr)
        return 2
    entries = {e["file"]: e for e in manifest["files"]}
    if os.path.isdir(path):
        targets = [(os.path.join(path, f), e) for f, e in sorted(entries.items())]
    elif os.path.basename(path) in entries:
        targets = [(path, entries[os.path.basename(path)])]
    else:
        print(f"{path}: not in the manifest (files: {sorted(entries)})", file=sys.stderr)
        return 2

    problems = []
    tensors = 0
    for file_path, entry in targets:
        try:
            tensors += check_file(file_path, entry, problems)
        except Exception as e:  # the reference refused the file: that is the finding
            problems.append(f"{os.path.basename(file_path)}: safetensors refused it: {type(e).__name__}: {e}")

    index_path = os.path.join(path, "model.safetensors.index.json") if os.path.isdir(path) else None
    if manifest.get("sharded") and index_path:
        with open(index_path) as fh:
            weight_map = json.load(fh)["weight_map"]
        ours = {t["name"]: e["file"] for e in manifest["files"] for t in e["tensors"]}
        if weight_map != ours:
            diff = sorted(k for k in set(weight_map) | set(ours) if weight_map.get(k) != ours.get(k))
            problems.append(f"index weight_map differs from the shards for {len(diff)} tensors, e.g. {diff[:3]}")

    for p in problems:
        print("MISMATCH", p)
    status = "FAIL" if problems else "PASS"
    print(f"{status}: {path}: {len(targets)} file(s), {tensors} tensors compared with safetensors "
          f"{safetensors.__version__}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
