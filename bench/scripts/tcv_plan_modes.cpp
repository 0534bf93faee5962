// Reads "M N K bits" lines and prints the tcv plan and launch mode (kernels/tcv.cu: launch_tcv_t) that
// tcv_pdl takes for each on a GPU of 132 SMs with 6 resident CTAs per SM at M <= 8 and 5 above (the
// H100's occupancy of the one- and two-tile kernels: 80 and 96 registers, <= 37 KB of shared memory).
// Built and run by bench/scripts/tcv_fetch_groups.py: g++ -std=c++20 -I lib.
#include <cstdio>

#include "kbit/tcv_sched.h"

int main() {
  long long M, N, K;
  int bits;
  while (std::scanf("%lld %lld %lld %d", &M, &N, &K, &bits) == 4) {
    const int per_sm = M > 8 ? 5 : 6;
    const kbit::TcvPlan p = kbit::tcv_plan_for(M, N, K, bits, per_sm * 132, 132, true);
    const char* mode = (p.cluster || p.short_k)        ? "latency"
                       : kbit::tcv_early_launch(p)      ? "early"
                       : p.splits > 1                   ? "workspace"
                                                        : "unsplit";
    std::printf("%s %d %d %lld\n", mode, p.kw, p.splits, static_cast<long long>(p.tiles));
  }
  return 0;
}
