// Reads "M N K bits" lines and prints, for the dense tcv_pdl at those rows on a GPU of 132 SMs with 6
// resident CTAs per SM at M <= 8 and 5 above (the H100's occupancy of the one- and two-tile kernels:
// 80 and 96 registers, <= 37 KB of shared memory):
//   its launch mode (kernels/tcv.cu: launch_tcv_t), kw, splits, tiles, and whether it decodes by a
//   pair table (tcv_uses_pairs for a codebook of fp16-normal values, as kbit-bench quantizes; its
//   thresholds from kernels/launch.h, without the KBIT_TCV_PAIRS3* knobs).
// Built and run by bench/scripts/tcv_fetch_groups.py: g++ -std=c++20 -I lib -I kernels.
#include <cstdio>

#include "launch.h"

int main() {
  namespace d = kbit::gpu::detail;
  long long M, N, K;
  int bits;
  while (std::scanf("%lld %lld %lld %d", &M, &N, &K, &bits) == 4) {
    const int per_sm = M > 8 ? 5 : 6;
    const kbit::TcvPlan p = kbit::tcv_plan_for(M, N, K, bits, per_sm * 132, 132, true);
    const char* mode = (p.cluster || p.short_k)        ? "latency"
                       : kbit::tcv_early_launch(p)      ? "early"
                       : p.splits > 1                   ? "workspace"
                                                        : "unsplit";
    const double weights = static_cast<double>(N) * static_cast<double>(K);
    const bool pairs = bits == 2   ? M <= d::kTcvPairs2MaxM
                       : bits == 3 ? M <= (weights >= d::kTcvPairsMinWeights ? d::kTcvPairs3MaxMBig : d::kTcvPairs3MaxM) &&
                                         weights >= d::kTcvPairs3MinWeights
                                   : bits == 4 && weights >= d::kTcvPairsMinWeights;
    std::printf("%s %d %d %lld %d\n", mode, p.kw, p.splits, static_cast<long long>(p.tiles), pairs ? 1 : 0);
  }
  return 0;
}
