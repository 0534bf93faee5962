#include "reference/gemm.h"

#include <string>

#include "kbit/error.h"
#include "kbit/parallel.h"
#include "reference/dequantize.h"

namespace kbit {
namespace {

// C rows [r0, r1) against expert e, threaded over n: each thread dequantizes one weight row at a
// time (K floats), so memory stays O(K) per thread whatever N is.
void gemm_rows(const float* A, int64_t r0, int64_t r1, const TiledView& w, int64_t e, float* C,
               int threads) {
  if (r0 == r1) return;
  parallel_for(w.N, threads, [&](int64_t n0, int64_t n1) {
    std::vector<float> row(static_cast<size_t>(w.K));
    for (int64_t n = n0; n < n1; ++n) {
      dequantize_row_ref(w, e, n, row.data());
      for (int64_t m = r0; m < r1; ++m) {
        const float* a = A + m * w.K;
        double acc = 0.0;
        for (int64_t kk = 0; kk < w.K; ++kk) acc += double(a[kk]) * double(row[kk]);
        C[m * w.N + n] = static_cast<float>(acc);
      }
    }
  });
}

}  // namespace

void gemm_ref(const float* A, int64_t M, const TiledView& w, float* C, int threads) {
  if (w.E != 1) throw Error("gemm_ref: weights hold " + std::to_string(w.E) + " experts; use moe_gemm_ref");
  gemm_rows(A, 0, M, w, 0, C, threads);
}

void moe_gemm_ref(const float* A, const std::vector<int64_t>& expert_offsets, const TiledView& w,
                  float* C, int threads) {
  if (static_cast<int64_t>(expert_offsets.size()) != w.E + 1 || expert_offsets.front() != 0)
    throw Error("moe_gemm_ref: expert_offsets needs E + 1 = " + std::to_string(w.E + 1) +
                " entries starting at 0");
  for (int64_t e = 0; e < w.E; ++e) {
    if (expert_offsets[e + 1] < expert_offsets[e])
      throw Error("moe_gemm_ref: expert_offsets decreases at expert " + std::to_string(e));
    gemm_rows(A, expert_offsets[e], expert_offsets[e + 1], w, e, C, threads);
  }
}

float gemm_element_ref(const float* A_row, const TiledView& w, int64_t e, int64_t n) {
  std::vector<float> row(static_cast<size_t>(w.K));
  dequantize_row_ref(w, e, n, row.data());
  double acc = 0.0;
  for (int64_t kk = 0; kk < w.K; ++kk) acc += double(A_row[kk]) * double(row[kk]);
  return static_cast<float>(acc);
}

}  // namespace kbit
