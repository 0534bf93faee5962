// Internals of the encoders shared by the scalar, AVX2 and AVX-512 code: the sorted-codebook
// index rule, exact decision thresholds, and the vector loops (x86-64, chosen at run time by
// cpu_supported()). Every path gives exactly the bytes of the scalar code; internal to lib/.
#pragma once

#include <cmath>
#include <cstdint>

namespace kbit {

namespace detail {
// First index minimising |t - cb[i]| over an ascending codebook, equal to the literal scan
// (nearest_index_ref) for every t. |t - cb[i]| in fp32 does not increase while cb[i] < t and does
// not decrease from there on (rounding is monotone), so the minimum sits at p-1 or p with
// p = #{cb[i] < t}; equal distances further left (repeated values, or rounding merging
// neighbours) are walked back to keep the lowest index, as the scan does.
inline int nearest_index_sorted(float t, const float* cb, int n) {
  int p = 0;
  for (int i = 0; i < n; ++i) p += cb[i] < t;
  if (p == 0) return 0;
  int best = p - 1;
  const float dist = std::fabs(t - cb[best]);
  if (p < n && std::fabs(t - cb[p]) < dist) return p;
  while (best > 0 && std::fabs(t - cb[best - 1]) == dist) --best;
  return best;
}

// Exact decision thresholds for a strictly ascending codebook: theta_i is the smallest float t in
// [cb[i], cb[i+1]] with fl(t - cb[i]) > fl(cb[i+1] - t), i.e. where cb[i+1] starts to win. Within
// (cb[p-1], cb[p]] the rule picks p-1 + [t >= theta_{p-1}] (both distances are monotone in t), so
// idx = #{theta_i <= t} - provided no two left neighbours round to equal distances, which cannot
// happen while every gap is >= 2 ulp of the largest |t - cb[i]|: valid for |t| <= t_max.
// Built only when that holds (valid == false otherwise, e.g. repeated values).
struct DecisionThresholds {
  alignas(64) float theta[32];  // n-1 thresholds, then +inf
  float t_max = 0.0f;
  bool valid = false;
};
DecisionThresholds make_thresholds(const float* cb, int n);
}  // namespace detail

namespace avx2 {
bool cpu_supported();
// Tables (`*_padded`) are 32 floats, 32-byte aligned, entries past n unused.
float abs_max(const float* x);  // max |x_j| over 32 values; NaN if any is NaN
// t_j = x_j / divisor (0 when divisor == 0), the index rule, bit planes into words; the 32
// indices also go to idx when it is not null.
void encode_indices(const float* x, float divisor, const float* cb_padded, int n, int k,
                    uint32_t* words, uint8_t* idx);
// sq_j = (x_j - cbs[idx_j] * scale)^2 in float64, each step rounded separately.
void squared_errors(const float* x, const uint8_t* idx, const float* cbs_padded, int n, float scale,
                    double* sq);
}  // namespace avx2

namespace avx512 {  // encode_avx512.cpp: the index loop only; everything else uses avx2::
bool cpu_supported();  // AVX-512F and AVX2
// th: exact thresholds, or null for the p-1/p comparison with its tie check.
void encode_indices(const float* x, float divisor, const float* cb_padded, const detail::DecisionThresholds* th,
                    int n, int k, uint32_t* words, uint8_t* idx);
}  // namespace avx512

}  // namespace kbit
