#!/usr/bin/env bash
# tcv's k = 3, 4 pair table on adjacent element pairs (block_adjacent_nibbles, stage_adj_table,
# frag_from_adj): the mma's B registers are the activation words as loaded, which drops the two PRMT
# joins per mma and n8 tile (16 of ~116 integer-pipe instructions per warp step at M <= 8, 32 at
# M <= 16; SASS: grouped k = 4 281 -> 267 instructions per step, k = 3 276 -> 256, k = 4 NT = 2
# 311 -> 280). One call, OLD (the tree before it, .deps/old-src.txz) and this tree built side by side:
# the tcv, MoE, grouped and one-hot doctests, memcheck over the tcv and MoE doctests, kbit-verify
# --quick over tcv, grouped_tcv and automatic with and without --pdl, then kbit-bench old / new in
# rotation (automatic_pdl, tcv_pdl and grouped_tcv; tcv_pdl and grouped_tcv in the new arm as well,
# to compare kernel against kernel) over Qwen3-Coder-Next, GLM-4.7-Flash and Llama-3-70B at
# M = 1, 2, 4, 8, k = 3, 4. Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh.
# Env: ADJ_BUDGET (default 585 s).
# Second call (the first, bench/results/2026-11-27-h100-tcvadj/first: grouped 1.02-1.06x, dense k = 3
# 1.08-1.12x on Llama-3-70B, but dense k = 4 0.87-0.98x on Llama-3-70B q/o_proj and down at M <= 4):
# the dense kernel stages the table by a plain loop (stage_adj_table_loop, as it kept stage_pair_table
# when the unrolled staging lost there), and a third arm, new4old (KBIT_TCV_ADJ_DENSE4=0, an
# experiment knob), runs the dense k = 4 kernels on block_nibbles' table as before (their SASS is
# the old kernels').
set -u
source bench/scripts/lib/device_run.sh
source bench/scripts/lib/device_build.sh
device_run_init /tmp/tcvadj ${ADJ_BUDGET:-585}
device_build_ab /tmp/adjold /tmp/adjnew kbit-bench kbit-verify kbit_tests_kernels || exit 1
gpu_info
doctest_filter '*tcv*,*MoE*,*grouped*,*one-hot*,*exact*' 120 'tcv, MoE, grouped, one-hot, exact'
doctest_sanitize memcheck '*tcv*,*MoE kernels equal*' 90
verify_run verify 80 4 "verify --quick tcv,grouped_tcv,automatic" --quick --kernels tcv,grouped_tcv,automatic
verify_run verify-pdl 70 4 "verify --quick --pdl tcv,grouped_tcv,automatic" --quick --pdl --kernels tcv,grouped_tcv,automatic
arm_setup() {
  KERNELS=automatic_pdl,tcv_pdl,grouped_tcv
  case $1 in old) BIN=.deps/gpu/kbit-bench-old ;; new4old) ENV=KBIT_TCV_ADJ_DENSE4=0 ;; esac
  B="--M 1,2,4,8 --bits 3,4 --dtypes f16 --models qwen3-coder-next glm-4.7-flash llama-3-70b"
}
BUDGET=$((BUDGET - 10)) MIN_LEFT=20 REPS=2 bench_rotation tcvadj old new new4old
