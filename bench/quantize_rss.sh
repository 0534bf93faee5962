#!/usr/bin/env bash
# Peak RSS and throughput of kbit-quantize on a multi-GB synthetic checkpoint (kbit-make-testdata,
# Qwen3-MoE layout, BF16). The claim checked: peak RSS is a small multiple of the largest tensor,
# independent of the checkpoint size (streaming per tensor, pages released after use).
# Usage: bench/quantize_rss.sh [BUILD_DIR=build] [LAYERS=20] [SCALE=16] [WORK=/tmp/kbit-bench-quantize]
# Prints a markdown table and writes $WORK/result.json. Needs /usr/bin/time (Debian package time).
set -euo pipefail
build=${1:-build} layers=${2:-20} scale=${3:-16} work=${4:-/tmp/kbit-bench-quantize}
gen=$build/apps/kbit-make-testdata q=$build/apps/kbit-quantize
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 2; }
rm -rf "$work" && mkdir -p "$work"
src=$work/src
measure() {  # name -- command: appends {name, wall_s, max_rss_kb, rc} to $work/runs.jsonl
  local name=$1
  shift 2
  set +e
  /usr/bin/time -f '%e %M' -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  set -e
  read -r wall rss <"$work/$name.time"
  echo "{\"name\": \"$name\", \"wall_s\": $wall, \"max_rss_kb\": $rss, \"rc\": $rc}" >>"$work/runs.jsonl"
  echo "$name: rc $rc, ${wall} s, peak RSS $((rss / 1024)) MiB"
}
measure generate -- "$gen" --model qwen3-moe --scale "$scale" --layers "$layers" --sharded 2 -o "$src"
src_bytes=$(du -sb "$src" | cut -f1)
largest=$("$gen" --model qwen3-moe --scale "$scale" --layers "$layers" --list |
  awk '/^[^ ]+ (BF16|F16|F32) \[/ { s = $0; sub(/^[^[]*\[/, "", s); sub(/\].*/, "", s); n = split(s, d, ", ");
       p = ($2 == "F32") ? 4 : 2; for (i = 1; i <= n; i++) p *= d[i]; if (p > m) m = p } END { print m }')
measure quantize_search_k4 -- "$q" "$src" "$work/out-search" --json -q
measure quantize_bnb_k4 -- "$q" "$src" "$work/out-bnb" --encoder bnb --json -q
measure check_search_k4 -- "$q" check "$work/out-search" --source "$src" -q
out_bytes=$(du -sb "$work/out-search" | cut -f1)
python3 - "$work" "$src_bytes" "$largest" "$out_bytes" "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" <<'PY'
import json, sys
work, src_bytes, largest, out_bytes, cores, cpu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6].strip()
runs = [json.loads(l) for l in open(work + "/runs.jsonl")]
summary = json.load(open(work + "/quantize_search_k4.out"))
res = {"cpu": cpu, "cores": cores, "source_bytes": src_bytes, "largest_tensor_bytes": largest,
       "output_bytes": out_bytes, "quantized_weights": summary["sizes"]["quantized_weights"],
       "tensors": summary["counts"], "runs": runs}
for r in runs:
    r["max_rss_mib"] = r["max_rss_kb"] / 1024
    r["rss_over_largest_tensor"] = r["max_rss_kb"] * 1024 / largest
    if r["name"] != "generate" and r["wall_s"] > 0:
        r["source_gb_per_s"] = src_bytes / r["wall_s"] / 1e9
        r["m_weights_per_s"] = res["quantized_weights"] / r["wall_s"] / 1e6
json.dump(res, open(work + "/result.json", "w"), indent=2)
print(f"\nsource {src_bytes/1e9:.2f} GB ({res['quantized_weights']/1e9:.2f} G weights quantized), largest tensor "
      f"{largest/1e6:.1f} MB, output {out_bytes/1e9:.2f} GB; {cores} cores, {cpu}\n")
print("| run | rc | wall s | peak RSS MiB | RSS / largest tensor | source GB/s | M weights/s |")
print("|---|---|---|---|---|---|---|")
for r in runs:
    print(f"| {r['name']} | {r['rc']} | {r['wall_s']:.2f} | {r['max_rss_mib']:.0f} | {r['rss_over_largest_tensor']:.1f} | "
          f"{r.get('source_gb_per_s', 0):.3f} | {r.get('m_weights_per_s', 0):.0f} |")
PY
