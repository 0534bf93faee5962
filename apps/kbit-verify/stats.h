// The tolerance statistics of tolerance.h on the CPU: S = sum_k |a_k w_k| and Q = sum_k (a_k w_k)^2
// with w = W' in fp32 (dequantize_row_ref), summed in float64 and rounded to fp32 once. kbit-verify
// computes them with cuBLAS fp32 GEMMs on |A|, A^2, |W'| and W'^2; with --no-cublas (so that a
// sanitizer instruments only our kernels) they come from here, for the checked elements only.
// Both are upper bounds after Tolerance::s_up's inflation: the float64 sums round once.
#pragma once

#include <cstdint>
#include <vector>

#include "kbit/tiled.h"

namespace kbit::verify {

struct ElementStats {
  float S = 0, Q = 0;
};

// One element: A_row [K] (fp32, as the reference sees it), row n of expert e.
ElementStats stats_element_ref(const float* A_row, const TiledView& w, int64_t e, int64_t n);

// Every element of the grouped product (dense: expert_offsets = {0, M}): S, Q [total, N].
// Each W' row is dequantized once and used for all rows of its expert.
void stats_ref(const float* A, const std::vector<int64_t>& expert_offsets, const TiledView& w, float* S, float* Q,
               int threads = 0);

}  // namespace kbit::verify
