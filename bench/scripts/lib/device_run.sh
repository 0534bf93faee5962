# Shared by the h100_pdl_*.sh and h100_moe_*.sh device scripts (sourced from the repo root on the
# GPU machine): a working folder whose contents land in $OUT/run.tar.gz on any exit, a summary
# logger, the time budget, the checks every PDL call ran first, and kbit-bench over rotating arms.

# device_run_init DIR DEFAULT_BUDGET: sets R (repo root), T0, BUDGET (the environment's wins),
# W=DIR (emptied), V (kbit-verify with the shapes catalogue) and the exit trap.
device_run_init() {
  R=$PWD; T0=$SECONDS; BUDGET=${BUDGET:-$2}
  W=$1; rm -rf "$W"; mkdir -p "$W"
  V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
  trap device_run_finish EXIT
}
device_run_finish() { tar -C "$W" -czf "$OUT/run.tar.gz" . ; cp "$W/summary.txt" "$OUT/" 2>/dev/null; }
# s TEXT: print and append to summary.txt; left: seconds of the budget left.
s() { echo "$*" | tee -a "$W/summary.txt"; }
left() { echo $((BUDGET - (SECONDS - T0))); }

# gpu_info: the GPU and its clocks, into the summary.
gpu_info() { nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$W/summary.txt"; }

# gpu_doctest NAME BINARY TIMEOUT_S: the GPU doctest binary .deps/gpu/BINARY into $W/NAME.txt, its rc
# and totals in the summary; returns 1 without running when the binary was not carried.
gpu_doctest() {
  [ -x ".deps/gpu/$2" ] || return 1
  (cd .deps/gpu && timeout "$3" "./$2" > "$W/$1.txt" 2>&1); s "$1 rc=$? after $((SECONDS - T0)) s"
  grep -E "assertions|Status|ERROR" "$W/$1.txt" | head -10 | tee -a "$W/summary.txt"
}

# doctest_filter FILTER TIMEOUT_S LABEL: the doctests of .deps/gpu/kbit_tests_kernels that FILTER
# selects into $W/kernels.txt under the timeout; "kernels (LABEL)" with its rc, and the totals, in
# the summary. The A/B scripts' doctest step.
doctest_filter() {
  (cd .deps/gpu && timeout "$2" ./kbit_tests_kernels -tc="$1" > "$W/kernels.txt" 2>&1)
  s "kernels ($3) rc=$? after $((SECONDS - T0)) s"
  grep -E 'assertions|Status' "$W/kernels.txt" | tee -a "$W/summary.txt"
}

# doctest_sanitize TOOL FILTER TIMEOUT_S [LABEL]: compute-sanitizer TOOL (memcheck, racecheck) over the
# doctests of .deps/gpu/kbit_tests_kernels that FILTER selects, without cuBLAS (KBIT_TEST_NO_CUBLAS=1),
# into $W/TOOL.txt; its rc and tail in the summary (LABEL, e.g. the environment the caller set, after
# the tool's name).
doctest_sanitize() {
  (cd .deps/gpu && KBIT_TEST_NO_CUBLAS=1 timeout "$3" compute-sanitizer --tool "$1" --error-exitcode 9 \
    ./kbit_tests_kernels -tc="$2" > "$W/$1.txt" 2>&1)
  s "$1${4:+ $4} $2 rc=$? after $((SECONDS - T0)) s"; tail -3 "$W/$1.txt" | tee -a "$W/summary.txt"
}

# pdl_doctest_checks KERNELS_S MEMCHECK_S RACECHECK_S [FILTER]: the GPU and its clocks, gpu.kernels,
# then compute-sanitizer memcheck and racecheck over the doctests FILTER selects (default the PDL
# ones, '*pdl*'), each under its timeout.
pdl_doctest_checks() {
  gpu_info
  (cd .deps/gpu && timeout "$1" ./kbit_tests_kernels > "$W/kernels.txt" 2>&1); s "kernels rc=$? after $((SECONDS - T0)) s"
  grep -E "assertions|Status|pdl|programmatic|ERROR" "$W/kernels.txt" | head -20 | tee -a "$W/summary.txt"
  local tool t what=pdl
  [ $# -ge 4 ] && what=$4
  for tool in memcheck racecheck; do
    t=$2; [ $tool = racecheck ] && t=$3
    (cd .deps/gpu && timeout "$t" compute-sanitizer --tool $tool --error-exitcode 9 ./kbit_tests_kernels \
      -tc="${4:-*pdl*}" > "$W/$tool.txt" 2>&1); s "$tool $what doctests rc=$? after $((SECONDS - T0)) s"
    tail -3 "$W/$tool.txt" | tee -a "$W/summary.txt"
  done
}

# doctest_checks KERNELS_S MEMCHECK_FILTER MEMCHECK_S RACECHECK_FILTER RACECHECK_S: how the scripts
# that check a build begin: the GPU and its clocks, the format doctests (when kbit_tests_gpu was
# carried), gpu.kernels, then compute-sanitizer memcheck and racecheck over the doctests each filter
# selects (when kbit_tests_kernels was carried), each under its timeout.
doctest_checks() {
  gpu_info
  gpu_doctest format kbit_tests_gpu 30
  if gpu_doctest kernels kbit_tests_kernels "$1"; then
    doctest_sanitize memcheck "$2" "$3"
    doctest_sanitize racecheck "$4" "$5"
  fi
}

# main_checks TAG RACECHECK_FILTER: a session's closing check of main (needs lib/device_build.sh and
# device_run_init): this tree built into /tmp/TAG, the format and kernel GPU doctests, memcheck over
# the gemv, split-K, PDL and MoE doctests, racecheck over RACECHECK_FILTER, then kbit-verify --quick
# over every dense and MoE kernel, and with --pdl over gemv, tcv, tcw, automatic and the MoE kernels.
main_checks() {
  device_build_new "/tmp/$1" kbit-bench kbit-verify kbit_tests_kernels kbit_tests_gpu || return 1
  doctest_checks 150 '*gemv*,*split-K*,*LinearArgs::pdl*,*MoeArgs::pdl*,*MoE kernels*' 150 "$2" 90
  verify_run verify 120 6 "verify --quick dense,moe" --quick --kernels dense,moe
  verify_run verify-pdl 90 6 "verify --quick --pdl gemv,tcv,tcw,automatic,moe" --quick --pdl \
    --kernels dense.gemv,dense.tcv,dense.tcw,dense.automatic,moe
}

# verify_run NAME TIMEOUT_S TAIL LABEL ARG...: kbit-verify (V) with ARG... into $W/NAME.txt under
# the timeout, then LABEL with its rc, and the log's last TAIL lines, in the summary. VENV: VAR=value
# words for its environment (default none).
verify_run() {
  local name=$1 t=$2 n=$3 label=$4
  shift 4
  env ${VENV:-} timeout "$t" "${V[@]}" "$@" > "$W/$name.txt" 2>&1
  s "$label rc=$? after $((SECONDS - T0)) s"; tail -"$n" "$W/$name.txt" | tee -a "$W/summary.txt"
}

# verify_moved TIMEOUT_S CASE...: kbit-verify (V) --pdl over automatic on each CASE by name (a case name without
# its dtype and kernel, e.g. dense/llama-3-70b.attn.q_proj/N8192.K8192/M12/k3), f16 then bf16, each under the
# timeout, into $W/verify-pdl.txt; the run count, the rc (1 if any failed) and the PASS count in the summary, then the
# verdict lines counted. The sweeps rotate k and dtype per M, so they miss most rows a dispatch rule moves.
verify_moved() {
  local t=$1 dt c n=0 vrc=0
  shift
  : > "$W/verify-pdl.txt"
  for dt in f16 bf16; do
    for c in "$@"; do
      n=$((n + 1))
      timeout "$t" "${V[@]}" --pdl --case "$c/$dt/automatic" >> "$W/verify-pdl.txt" 2>&1 || vrc=1
    done
  done
  s "verify --pdl automatic on $n moved runs (cases x f16, bf16) rc=$vrc after $((SECONDS - T0)) s: $(grep -c 'PASS$' "$W/verify-pdl.txt") PASS lines"
  grep -E "cases in" "$W/verify-pdl.txt" | sed 's/in [0-9.]* s/in _ s/' | sort | uniq -c | tee -a "$W/summary.txt"
}

# verify_cases NAME TIMEOUT_S CASE...: kbit-verify (V) on each CASE by name (a case name through its bit width, e.g.
# moe/qwen3-coder-next.mlp.experts.down/E512.N2048.K512.top10.realistic/T2/k5) over each kernel of VKERNELS (default
# automatic), in f16 and bf16, launched plainly and with --pdl, each run under the timeout, into $W/NAME.txt; the run
# count, the rc (1 if any failed) and the PASS count in the summary. The check scripts' step for the cases a rule moves.
verify_cases() {
  local name=$1 t=$2 kern c dt p n=0 vrc=0
  shift 2
  : > "$W/$name.txt"
  for kern in ${VKERNELS:-automatic}; do
    for c in "$@"; do
      for dt in f16 bf16; do
        for p in "" --pdl; do
          n=$((n + 1))
          timeout "$t" "${V[@]}" $p --case "$c/$dt/$kern" >> "$W/$name.txt" 2>&1 || vrc=1
        done
      done
    done
  done
  s "verify ${VKERNELS:-automatic} on $n runs of the named cases rc=$vrc after $((SECONDS - T0)) s: $(grep -c 'PASS$' "$W/$name.txt") PASS lines"
}

# sanitize_cases NAME TIMEOUT_S TOOLS CASE...: for each compute-sanitizer tool of TOOLS (space-separated: memcheck,
# racecheck), kbit-verify (V) on each full CASE name without cuBLAS and the rerun, under the timeout, into
# $W/TOOL-NAME.txt; each run's rc in the summary, then the tool's summary lines counted.
sanitize_cases() {
  local name=$1 t=$2 tools=$3 tool c
  shift 3
  for tool in $tools; do
    : > "$W/$tool-$name.txt"
    for c in "$@"; do
      timeout "$t" compute-sanitizer --tool "$tool" --error-exitcode 9 "${V[@]}" --no-cublas --no-rerun --case "$c" \
        >> "$W/$tool-$name.txt" 2>&1
      s "$tool $c rc=$? after $((SECONDS - T0)) s"
    done
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|cases in" "$W/$tool-$name.txt" | sed 's/in [0-9.]* s/in _ s/' | sort | uniq -c |
      tee -a "$W/summary.txt"
  done
}

# verify_sanitize NAME MIN_LEFT TIMEOUT_S FILTER TOOL...: for each compute-sanitizer TOOL (memcheck,
# racecheck, synccheck), while more than MIN_LEFT seconds of the budget are left: kbit-verify (V)
# --full over the dense.tcw cases FILTER selects, without cuBLAS, the exact-mode launch and the
# rerun, into $W/TOOL-NAME.txt under the timeout; its rc and tail in the summary.
verify_sanitize() {
  local name=$1 min=$2 t=$3 filter=$4 tool
  shift 4
  for tool in "$@"; do
    [ "$(left)" -gt "$min" ] || { s "$tool $name skipped: $(left) s left"; continue; }
    timeout "$t" compute-sanitizer --tool "$tool" --error-exitcode 9 "${V[@]}" --full --no-cublas --no-exact \
      --no-rerun --kernels dense.tcw --filter "$filter" > "$W/$tool-$name.txt" 2>&1
    s "$tool $name rc=$? after $((SECONDS - T0)) s"; tail -2 "$W/$tool-$name.txt" | tee -a "$W/summary.txt"
  done
}

# bench_rotation TAG ARM...: kbit-bench with the sweep flags in B over the arms in rotation, REPS
# times (default 2); the run i of n gets an equal share of the budget left, and none starts with
# less than MIN_LEFT seconds (default 30). Before each run the caller's arm_setup ARM may change
# BIN (default .deps/gpu/kbit-bench), KERNELS (default automatic,automatic_pdl) and ENV
# (VAR=value words for the run, default none); a missing BIN skips the run. The catalogue: SHAPES
# (default $R/data/shapes.json; moe_catalogue sets it). RUN_MAX_S: at most that many seconds a run. Files:
# $W/bench-<i>-<arm>.json and .txt; the commit recorded is TAG-ARM.
bench_rotation() {
  local tag=$1; shift
  local arms=("$@") n=$(( ${REPS:-2} * $# )) i=0 rep arm l t
  for rep in $(seq ${REPS:-2}); do
    for arm in "${arms[@]}"; do
      i=$((i + 1)); l=$(left); [ $l -lt ${MIN_LEFT:-30} ] && return
      BIN=.deps/gpu/kbit-bench; KERNELS=automatic,automatic_pdl; ENV=
      arm_setup "$arm"
      [ -x "$BIN" ] || { s "bench $i $arm: no $BIN"; continue; }
      t=$((l / (n + 1 - i) + 5)); [ -n "${RUN_MAX_S:-}" ] && [ "$t" -gt "$RUN_MAX_S" ] && t=$RUN_MAX_S
      env $ENV timeout -s INT $t "$BIN" --shapes "${SHAPES:-$R/data/shapes.json}" --git-commit "$tag-$arm" \
        $B --kernels $KERNELS --json $W/bench-$i-$arm.json > $W/bench-$i-$arm.txt 2>&1
      s "bench $i $arm rc=$? after $((SECONDS - T0)) s"
    done
  done
}

# ncu_pipe_arms MIN_LEFT VAR CASE ARM...: when more than MIN_LEFT seconds of the budget are left,
# bench/scripts/h100_pipe_util.sh (ncu pipes and stalls) on the kbit-verify case CASE once per ARM,
# with VAR=ARM in its environment, into $W/ncu-ARM/ (log $W/ncu-ARM.log), each under half the budget
# left; its rc in the summary.
ncu_pipe_arms() {
  local min=$1 var=$2 case=$3 arm
  shift 3
  [ "$(left)" -gt "$min" ] || return 0
  for arm in "$@"; do
    mkdir -p "$W/ncu-$arm"
    env "$var=$arm" OUT="$W/ncu-$arm" CASES="$case" timeout $(( $(left) / 2 )) \
      bash bench/scripts/h100_pipe_util.sh > "$W/ncu-$arm.log" 2>&1
    s "ncu $arm rc=$? after $((SECONDS - T0)) s"
  done
}

# moe_catalogue DIR [MODEL.SHAPE...]: DIR/data/shapes.json = the shapes catalogue with only the MoE
# projections (experts > 1) of the models that have any, and the dense shapes named (e.g.
# qwen3-coder-next.attn.o_proj); SHAPES points at it, so bench_rotation benches those alone.
moe_catalogue() {
  mkdir -p "$1/data"
  SHAPES=$1/data/shapes.json
  python3 - "$R/data/shapes.json" "$1/data/shapes.json" "${@:2}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keep = set(sys.argv[3:])
for m in d["models"]:
    m["gemms"] = [g for g in m["gemms"] if g.get("experts", 1) > 1 or m["name"] + "." + g["name"] in keep]
d["models"] = [m for m in d["models"] if any(g.get("experts", 1) > 1 for g in m["gemms"])]
json.dump(d, open(sys.argv[2], "w"))
PY
}

# dense_catalogue DIR: DIR/dense.json = the shapes catalogue without its MoE projections (experts > 1);
# SHAPES points at it.
dense_catalogue() {
  mkdir -p "$1"
  SHAPES=$1/dense.json
  python3 - "$R/data/shapes.json" "$SHAPES" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["models"]:
    m["gemms"] = [g for g in m["gemms"] if g.get("experts", 1) == 1]
json.dump(d, open(sys.argv[2], "w"))
PY
}

# shapes_subset DIR MODEL.GEMM...: DIR/shapes.json = the shapes catalogue with only the named projections (e.g.
# qwen3-coder-next.attn.k_proj), each model keeping its other fields; SHAPES points at it.
shapes_subset() {
  mkdir -p "$1"
  SHAPES=$1/shapes.json
  python3 - "$R/data/shapes.json" "$SHAPES" "${@:2}" <<'PY'
import json, sys
keep = set(sys.argv[3:])
d = json.load(open(sys.argv[1]))
for m in d["models"]:
    m["gemms"] = [g for g in m["gemms"] if m["name"] + "." + g["name"] in keep]
d["models"] = [m for m in d["models"] if m["gemms"]]
json.dump(d, open(sys.argv[2], "w"))
PY
}

# pdl_audit TAG REPS MIN_LEFT FLAGS...: the dispatch audit's bench step: kbit-bench with FLAGS over gemv_pdl, tcv_pdl,
# tcw_pdl and automatic_pdl (bench_rotation, one arm named TAG's last word: files $W/bench-<i>-ARM.json), REPS runs,
# none started with less than MIN_LEFT seconds left; then bench/scripts/pdl_kernels_table.py over them into
# $W/table.txt and its count of MISS rows (automatic_pdl > 5% slower than the fastest kernel) in the summary.
# TAG: COMMIT-ARM as bench_rotation records it (e.g. main-audit).
pdl_audit() {
  local tag=${1%-*} arm=${1##*-} reps=$2 min=$3
  shift 3
  local flags="$*"
  arm_setup() { B=$flags; KERNELS=gemv_pdl,tcv_pdl,tcw_pdl,automatic_pdl; }
  REPS=$reps MIN_LEFT=$min bench_rotation "$tag" "$arm"
  python3 bench/scripts/pdl_kernels_table.py "$W"/bench-*-"$arm".json > "$W/table.txt" 2>&1
  grep -c MISS "$W/table.txt" | sed 's/^/MISS rows: /' | tee -a "$W/summary.txt"
}

# rows_catalogue [max=WEIGHTS] [skip=MODEL]... [MODEL.SHAPE]...: $W/rows.json = the shapes catalogue's dense shapes
# (experts == 1) below WEIGHTS weights (N x K) where given, without the models skipped, and only the MODEL.SHAPEs
# named where any are; SHAPES points at it. The analysis scripts read it back from a record
# (bench/scripts/pdl_compare.py catalogue_dims).
rows_catalogue() {
  SHAPES=$W/rows.json
  python3 - "$R/data/shapes.json" "$SHAPES" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
args = sys.argv[3:]
most = min([float(a[4:]) for a in args if a.startswith("max=")] + [float("inf")])
skip = {a[5:] for a in args if a.startswith("skip=")}
named = {a for a in args if "=" not in a}
for m in d["models"]:
    m["gemms"] = [g for g in m["gemms"] if g.get("experts", 1) == 1 and g["N"] * g["K"] < most
                  and (not named or m["name"] + "." + g["name"] in named)]
d["models"] = [m for m in d["models"] if m["gemms"] and m["name"] not in skip]
json.dump(d, open(sys.argv[2], "w"))
PY
}

# small_catalogue DIR: DIR/small.json = the shapes catalogue with only Qwen3-Coder-Next's and
# GLM-4.7-Flash's dense block shapes of at most 2.2 M weights (k/v_proj, shared_expert.*, q_a and
# kv_a_proj: gemv's cluster grids); SHAPES points at it.
small_catalogue() {
  mkdir -p "$1"
  SHAPES=$1/small.json
  python3 - "$R/data/shapes.json" "$SHAPES" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keep = {"qwen3-coder-next", "glm-4.7-flash"}
d["models"] = [m for m in d["models"] if m["name"] in keep]
for m in d["models"]:
    m["gemms"] = [g for g in m["gemms"] if g.get("experts", 1) == 1 and g["N"] * g["K"] <= 2200000 and g.get("block", True)]
json.dump(d, open(sys.argv[2], "w"))
PY
}

# dense_moe_ab TAG DENSE_FLAGS DENSE_KERNELS MOE_FLAGS MOE_KERNELS: kbit-bench in rotation over the
# arms oldmoe, newmoe, old, new (bench_rotation: REPS, MIN_LEFT and BUDGET as the caller sets them).
# The *moe arms bench the MoE-only catalogue (moe_catalogue) with MOE_FLAGS and MOE_KERNELS, the
# others the whole catalogue with DENSE_FLAGS and DENSE_KERNELS; the old* arms run main's kbit-bench,
# .deps/gpu/kbit-bench-old (carried, or built by lib/device_build.sh). The session's A/B scripts.
dense_moe_ab() {
  DMA_DB=$2 DMA_DK=$3 DMA_MB=$4 DMA_MK=$5
  moe_catalogue "$W/moe"
  DMA_SHAPES=$SHAPES; unset SHAPES
  arm_setup() {
    case $1 in old*) BIN=.deps/gpu/kbit-bench-old ;; esac
    case $1 in
      *moe) SHAPES=$DMA_SHAPES; B=$DMA_MB; KERNELS=$DMA_MK ;;
      *) unset SHAPES; B=$DMA_DB; KERNELS=$DMA_DK ;;
    esac
  }
  bench_rotation "$1" oldmoe newmoe old new
}

# gtcw_checks DOCTEST_S SANITIZER_S VERIFY_S [TOOL...]: the GPU and its clocks, every GPU doctest,
# each compute-sanitizer TOOL (memcheck, racecheck) over the MoE + grouped_tcw doctests, then
# kbit-verify --quick on grouped_tcw + automatic (MoE), each under its timeout; the grouped_tcw
# device scripts' checks. Logs in $W, one line each in the summary.
gtcw_checks() {
  local td=$1 ts=$2 tv=$3 tool
  shift 3
  gpu_info
  gpu_doctest kernels kbit_tests_kernels "$td"
  for tool in "$@"; do
    (cd .deps/gpu && timeout "$ts" compute-sanitizer --tool "$tool" --error-exitcode 9 ./kbit_tests_kernels \
      -tc='*MoE kernels*,*grouped_tcw*' > "$W/$tool.txt" 2>&1); s "$tool MoE doctests rc=$? after $((SECONDS - T0)) s"
    tail -3 "$W/$tool.txt" | tee -a "$W/summary.txt"
  done
  timeout "$tv" "${V[@]}" --quick --kernels grouped_tcw,automatic --filter '^moe/' > "$W/verify.txt" 2>&1
  s "verify --quick moe grouped_tcw,automatic rc=$? after $((SECONDS - T0)) s"; tail -5 "$W/verify.txt" | tee -a "$W/summary.txt"
}

# moe_ab TAG KERNELS OLD_ARM OLD_BIN NEW_ARM: kbit-bench over the MoE-only catalogue (moe_catalogue),
# KERNELS in both arms, OLD_ARM with the binary OLD_BIN and NEW_ARM with this build's, in rotation
# (bench_rotation; REPS and MIN_LEFT default to 2 and 20). The sweep flags: B, else BENCH, else
# Qwen3-Coder-Next and GLM-4.7-Flash at M = 512..4096, k = 2..4, f16. The grouped_tcw A/B scripts.
moe_ab() {
  MOE_AB_KERNELS=$2 MOE_AB_OLD=$3 MOE_AB_BIN=$4
  moe_catalogue "$W/moe"
  B=${B:-${BENCH:---models qwen3-coder-next glm-4.7-flash --M 512,1024,2048,4096 --bits 2,3,4 --dtypes f16}}
  arm_setup() { KERNELS=$MOE_AB_KERNELS; [ "$1" = "$MOE_AB_OLD" ] && BIN=$MOE_AB_BIN; }
  REPS=${REPS:-2} MIN_LEFT=${MIN_LEFT:-20} bench_rotation "$1" "$3" "$5"
}

# gemv_plan_ab TAG MODELS: the gemv plan experiments' call (needs lib/device_build.sh and
# device_run_init): main (.deps/old-src.txz) and this tree built side by side into /tmp/TAG-old and
# /tmp/TAG-new, the gemv, PDL and split-K doctests, kbit-verify --quick over gemv with and without
# --pdl, then kbit-bench old and new in rotation (two runs each) over MODELS at M = 1, 2, 4,
# k = 2..5, f16 (gemv, gemv_pdl, automatic_pdl).
gemv_plan_ab() {
  GPA_MODELS=$2
  device_build_ab /tmp/$1-old /tmp/$1-new kbit-bench kbit-verify kbit_tests_kernels || return 1
  gpu_info
  doctest_filter '*gemv*,*LinearArgs::pdl*,*split-K*' 120 'gemv, pdl, split-K'
  verify_run verify 40 3 "verify --quick gemv" --quick --kernels dense.gemv
  verify_run verify-pdl 40 3 "verify --quick --pdl gemv" --quick --pdl --kernels dense.gemv
  arm_setup() {
    case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; esac
    B="--M 1,2,4 --bits 2,3,4,5 --dtypes f16 --models $GPA_MODELS"
    KERNELS=gemv,gemv_pdl,automatic_pdl
  }
  MIN_LEFT=20 REPS=2 bench_rotation "$1" old new
}

# verify_arms TIMEOUT_S KERNELS ARM...: kbit-verify --quick --kernels KERNELS with each arm's
# .deps/gpu/kbit-verify-ARM (verify_run, into $W/verify-ARM.txt; the last 3 lines in the summary).
verify_arms() {
  local t=$1 k=$2 a
  shift 2
  for a in "$@"; do
    V=(.deps/gpu/kbit-verify-$a --shapes "$R/data/shapes.json")
    verify_run "verify-$a" "$t" 3 "verify --quick $k ($a)" --quick --kernels "$k"
  done
  V=(.deps/gpu/kbit-verify --shapes "$R/data/shapes.json")
}

# knob_ab KNOB ARM FILTER BITS NCU_CASE CASE...: one call of a gemv knob experiment (the forty-first session's
# h200_gemv_*.sh; the knob read from the environment, default off, as on the exp/gemv-* branches): the GPU; the
# doctests FILTER selects (their log also kept as kernels-ARMcase.txt); with KNOB=1 the gemv, split-K and PDL
# doctests, and kbit-verify over gemv and automatic on each CASE (verify_cases); memcheck and racecheck over FILTER;
# kbit-bench gemv_pdl and automatic_pdl over the dense catalogue at M = 1, k = BITS, f16 and bf16, arms main
# (KNOB=0) and ARM (KNOB=1) in rotation, three reps; ncu (ncu_pipe_arms, when more than NCU_MIN seconds are left,
# default 30) on NCU_CASE with KNOB=0 and 1, its duration, issue, DRAM and L1 lines in the summary.
knob_ab() {
  local knob=$1 arm=$2 filter=$3 bits=$4 ncu_case=$5 a
  shift 5
  gpu_info
  doctest_filter "$filter" 60 "the $arm doctest"
  cp "$W/kernels.txt" "$W/kernels-${arm}case.txt"
  export "$knob=1"
  doctest_filter '*gemv*,*split-K*,*LinearArgs::pdl*' 150 "gemv, split-K, PDL doctests with $knob=1"
  doctest_sanitize memcheck "$filter" 90
  doctest_sanitize racecheck "$filter" 120
  VKERNELS="gemv automatic" verify_cases verify 60 "$@"
  grep -E "FAIL|cases in" "$W/verify.txt" | sed 's/in [0-9.]* s/in _ s/' | sort | uniq -c | tee -a "$W/summary.txt"
  unset "$knob"
  dense_catalogue "$W/cat"
  KNOB_AB=("$knob" "$arm" "$bits")
  arm_setup() {
    KERNELS=gemv_pdl,automatic_pdl; B="--M 1 --bits ${KNOB_AB[2]} --dtypes f16,bf16"
    if [ "$1" = "${KNOB_AB[1]}" ]; then ENV=${KNOB_AB[0]}=1; else ENV=${KNOB_AB[0]}=0; fi
  }
  RUN_MAX_S=60 REPS=3 MIN_LEFT=40 bench_rotation "${REC_TAG:-exp}" main "$arm"
  ncu_pipe_arms "${NCU_MIN:-30}" "$knob" "$ncu_case" 0 1
  for a in 0 1; do
    zcat "$W"/ncu-$a/raw_*.gz 2>/dev/null |
      grep -E 'gpu__time_duration.sum|sm__issue_active.avg|gpu__dram_throughput.avg.pct|smsp__inst_executed.sum |l1tex__throughput.avg.pct|l1tex__data_pipe_lsu_wavefronts.avg.pct' |
      awk -v a="$knob=$a" '{print "ncu " a ": " $1, $NF}' | tee -a "$W/summary.txt"
  done
}

# lut_checks: the checks of gemv's activation-sum tables as they run by default (forty-second session): the whole GPU
# doctest binary, memcheck and racecheck over the tables' doctest, kbit-verify --full over gemv and automatic at M = 1,
# k = 2, plain and --pdl.
lut_checks() {
  gpu_doctest kernels kbit_tests_kernels 150
  doctest_sanitize memcheck '*activation-sum*' 90
  doctest_sanitize racecheck '*activation-sum*' 120
  verify_run verify-k2m1 150 3 "verify --full gemv,automatic M = 1, k = 2" --full --kernels gemv,automatic \
    --filter '/M1/k2/'
  verify_run verify-k2m1-pdl 150 3 "verify --full --pdl gemv,automatic M = 1, k = 2" --full --pdl \
    --kernels gemv,automatic --filter '/M1/k2/'
}

# balance_ab TAG: KBIT_GEMV_BALANCE=1 checked (the gemv / split-K / PDL doctests, kbit-verify --full --pdl at M = 1,
# k = 2..5), then kbit-bench gemv_pdl and automatic_pdl at M = 1, k = 2..5, f16, arms d1 (off) / bal, three reps.
balance_ab() {
  export KBIT_GEMV_BALANCE=1
  doctest_filter '*gemv*,*split-K*,*LinearArgs::pdl*' 150 'gemv, split-K, PDL doctests, balance on'
  verify_run verify-m1-pdl 150 3 "verify --full --pdl gemv,automatic M = 1, balance on" --full --pdl \
    --kernels gemv,automatic --filter '/M1/k[2-5]/'
  unset KBIT_GEMV_BALANCE
  dense_catalogue "$W/cat"
  arm_setup() {
    KERNELS=gemv_pdl,automatic_pdl; B="--M 1 --bits 2 3 4 5 --dtypes f16"
    if [ "$1" = bal ]; then ENV=KBIT_GEMV_BALANCE=1; else ENV=KBIT_GEMV_BALANCE=0; fi
  }
  RUN_MAX_S=45 REPS=3 MIN_LEFT=20 bench_rotation "$1" d1 bal
}
