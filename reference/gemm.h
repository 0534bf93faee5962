// fp32 CPU GEMM on tiled kbit weights (FORMAT §6): C[m, n] = sum_k A[m, k] * W'[n, k].
// The oracle every GPU kernel is checked against. Products and sums are taken in float64 and
// rounded to fp32 once, so the reference is closer to the exact value than any fp32 kernel; in
// exact mode (reference/exact_mode.h) every order gives the same bits anyway.
#pragma once

#include <cstdint>
#include <vector>

#include "kbit/tiled.h"

namespace kbit {

// Dense: A [M, K] fp32 row-major, W one expert (w.E == 1), C [M, N] fp32.
void gemm_ref(const float* A, int64_t M, const TiledView& w, float* C, int threads = 0);

// Grouped MoE: the rows of A [total, K] are sorted by expert; expert e owns rows
// expert_offsets[e] .. expert_offsets[e+1]-1 (empty ranges allowed); C [total, N].
// expert_offsets has E + 1 entries, starts at 0, never decreases and ends at total.
void moe_gemm_ref(const float* A, const std::vector<int64_t>& expert_offsets, const TiledView& w,
                  float* C, int threads = 0);

// One output element (for sampled checks of shapes too large for the full reference).
float gemm_element_ref(const float* A_row, const TiledView& w, int64_t e, int64_t n);

}  // namespace kbit
