// AVX2 versions of the encoder's hot loops (x86-64, chosen at run time by cpu_supported()).
// Each must give exactly the bytes of the scalar code in encode.cpp; internal to lib/.
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
}  // namespace detail

namespace avx2 {
bool cpu_supported();
float abs_max(const float* x);                                  // max |x_j| over 32 (NaN -> NaN)
void divide(const float* x, float divisor, float* t);           // t_j = x_j / divisor (0 if divisor 0)
void nearest_indices(const float* t, const float* cb, int n, uint8_t* idx);
void pack_bitplanes(const uint8_t* idx, int k, uint32_t* words);
void squared_errors(const float* x, const uint8_t* idx, const float* cbs, int n, float scale,
                    double* sq);
}  // namespace avx2

}  // namespace kbit
