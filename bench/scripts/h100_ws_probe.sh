#!/usr/bin/env bash
# Prepared in the thirty-seventh session, not yet run: the warp-specialized probe (bench/probes/ws_probe_gen.py: P
# producer warpgroups decoding tcw's k = 4 fragments into a shared-memory A tile with stmatrix, two consumer warpgroups
# on wgmma m64n256k16 with A and B from shared memory, setmaxnreg) and the RS/SS issue probe for reference. Needs no
# build folder: nvcc there, ~10 s. Writes $OUT/ws/{ws.txt,issue.txt}. Each run under a timeout (a wrong mbarrier count
# would hang). Usage: bash bench/scripts/h100_ws_probe.sh
set -u
mkdir -p "$OUT/ws"
F="-O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -DKBIT_HAVE_SM90A=1 -I kernels -I lib"
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader | tee "$OUT/ws/ws.txt"
python3 bench/probes/ws_probe_gen.py > /tmp/ws.cu && nvcc $F -Xptxas -v /tmp/ws.cu -o /tmp/ws > "$OUT/ws/ptxas.txt" 2>&1 \
  && timeout 60 /tmp/ws | tee -a "$OUT/ws/ws.txt"; echo "ws rc=$?" | tee -a "$OUT/ws/ws.txt"
python3 bench/probes/wgmma_issue_gen.py > /tmp/issue.cu && nvcc $F /tmp/issue.cu -o /tmp/issue \
  && timeout 60 /tmp/issue > "$OUT/ws/issue.txt"; echo "issue rc=$?" | tee -a "$OUT/ws/ws.txt"
