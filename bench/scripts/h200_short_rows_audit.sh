#!/usr/bin/env bash
# Short-row dispatch at M = 1, 2 on the H200 (forty-third session): gemv, tcv and automatic, plain and under PDL, on
# the dense short-row shapes (K <= 512: GLM-4.7-Flash kv_b_proj 8960 x 512, Qwen3-Coder-Next shared_expert.down 2048 x
# 512) at k = 2..5, f16, three reps. -checks-s43's k = 2 audit had GLM kv_b_proj at M = 1 under PDL on gemv (2.35 us)
# where tcv ran 2.29; the rules for these rows were set on the H100. main's kbit-bench (24cbdc7), carried.
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/srw ${BUDGET:-120}
gpu_info
rows_catalogue glm-4.7-flash.attn.kv_b_proj qwen3-coder-next.mlp.shared_expert.down
arm_setup() { KERNELS=gemv,tcv,automatic,gemv_pdl,tcv_pdl,automatic_pdl; B="--M 1,2 --bits 2,3,4,5 --dtypes f16"; }
REPS=3 MIN_LEFT=10 bench_rotation srw audit
