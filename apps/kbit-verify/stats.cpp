#include "stats.h"

#include <cmath>

#include "kbit/parallel.h"
#include "reference/dequantize.h"

namespace kbit::verify {

namespace {
ElementStats stats_of_row(const float* a, const float* wrow, int64_t K) {
  double s = 0, q = 0;
  for (int64_t k = 0; k < K; ++k) {
    const double p = double(a[k]) * double(wrow[k]);
    s += std::fabs(p);
    q += p * p;
  }
  return {float(s), float(q)};
}
}  // namespace

ElementStats stats_element_ref(const float* A_row, const TiledView& w, int64_t e, int64_t n) {
  std::vector<float> wrow(static_cast<size_t>(w.K));
  dequantize_row_ref(w, e, n, wrow.data());
  return stats_of_row(A_row, wrow.data(), w.K);
}

void stats_ref(const float* A, const std::vector<int64_t>& expert_offsets, const TiledView& w, float* S, float* Q,
               int threads) {
  const int64_t E = int64_t(expert_offsets.size()) - 1, N = w.N, K = w.K;
  // Over (expert, column) pairs: one dequantized W' row serves every row of its expert.
  parallel_for(E * N, threads, [&](int64_t i0, int64_t i1) {
    std::vector<float> wrow(static_cast<size_t>(K));
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t e = i / N, n = i % N;
      const int64_t r0 = expert_offsets[size_t(e)], r1 = expert_offsets[size_t(e + 1)];
      if (r0 == r1) continue;
      dequantize_row_ref(w, e, n, wrow.data());
      for (int64_t r = r0; r < r1; ++r) {
        const ElementStats st = stats_of_row(A + r * K, wrow.data(), K);
        S[size_t(r * N + n)] = st.S;
        Q[size_t(r * N + n)] = st.Q;
      }
    }
  });
}

}  // namespace kbit::verify
