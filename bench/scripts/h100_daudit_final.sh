#!/usr/bin/env bash
# Twenty-fifth session, after h100_daudit_land.sh: the rules as landed (kernels/api.cu: k = 2 at M = 1
# only on rows of K <= 2048, and k = 3 at M = 2 on tcv's pair table, measured there as tcv_pdl against
# gemv_pdl) checked as automatic_pdl against the old rules in one call: old (.deps/old-src.txz) and new
# built side by side; the PDL dispatch doctests (their new cases: 2048 x 512 at k = 3, 2048 x 10240 and
# 16384 x 2048 at k = 2, 4096 x 8192 at k = 3); kbit-verify --quick --pdl over automatic (new);
# kbit-bench old / new in rotation (automatic_pdl; all four catalogue models; M = 1, 2; k = 2, 3; 2 reps).
# Pack first with OLD=<rev> bash bench/scripts/pack_device_build.sh; carry .deps/sys.txz and
# .deps/old-src.txz. Env: DF_BUDGET (420 s). The steps are h100_daudit_land.sh's, with its bench narrowed.
DL_WORK=/tmp/dfinal DL_BUDGET=${DF_BUDGET:-420} DL_KERNELS=automatic_pdl DL_M=1,2 DL_TAG=daudit-final DL_MIN_LEFT=15 \
  exec bash bench/scripts/h100_daudit_land.sh
