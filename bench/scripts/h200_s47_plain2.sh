#!/usr/bin/env bash
# Forty-seventh session, after -s47m's audit ran out of time (its tcv/tcw arm reached the Qwen3 shapes only):
#   1. tcw_mid_plain's A/B on the rows it moves: automatic launched plainly, old (KBIT_TCW_MID_PLAIN=1) / new, with
#      tcv and tcw beside it in the new arm, Llama-3-8B q/o/qkv_proj and GLM shared_experts.down, M = 3..8, k = 2..5,
#      two reps (arms oldm / newm);
#   2. the rest of the plain audit at M = 9..16: tcv and tcw launched plainly on the GLM and Llama dense shapes (non-block
#      ones too) at M = 10, 12, 16, k = 2..5, two reps (arm aud). In -s47m tcv led plain tcw at M = 10..16 on Qwen3
#      o_proj, linear_attn.out_proj, dense.down and in_proj_qkvz by 1.05-1.25x.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/s47n ${BUDGET:-200}
gpu_info
shapes_subset "$W/mid" llama-3-8b.attn.q_proj llama-3-8b.attn.o_proj llama-3-8b.attn.qkv_proj \
  glm-4.7-flash.mlp.shared_experts.down
arm_setup() {
  B="--M 3,4,5,6,8 --bits 2,3,4,5 --dtypes f16 --non-block"
  KERNELS=automatic
  if [ "$1" = oldm ]; then ENV="KBIT_TCW_MID_PLAIN=1"; else KERNELS=tcv,tcw,automatic; fi
}
REPS=2 MIN_LEFT=100 bench_rotation s47n oldm newm
mkdir -p "$W/gl"
SHAPES=$W/gl/shapes.json
python3 - "$R/data/shapes.json" "$SHAPES" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["models"] = [m for m in d["models"] if not m["name"].startswith("qwen3")]
for m in d["models"]:
    m["gemms"] = [g for g in m["gemms"] if g.get("experts", 1) == 1]
json.dump(d, open(sys.argv[2], "w"))
PY
arm_setup() { B="--M 10,12,16 --bits 2,3,4,5 --dtypes f16 --non-block"; KERNELS=tcv,tcw; }
REPS=2 MIN_LEFT=10 bench_rotation s47n aud
