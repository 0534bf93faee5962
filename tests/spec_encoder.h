// A literal, slow transcription of FORMAT §4 used as the oracle for lib/kbit/encode.cpp. Written
// independently of the library (linear scans, float64 log2), so a shared mistake is unlikely.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "kbit/format.h"

namespace spec {

inline int nearest(float t, const std::vector<float>& cb) {
  int best = 0;
  for (int i = 1; i < int(cb.size()); ++i)
    if (std::fabs(t - cb[i]) < std::fabs(t - cb[best])) best = i;
  return best;
}

inline uint8_t e4m4_bnb(float a) {
  if (a <= 0) return 0;
  const int eu = int(std::floor(std::log2(double(a))));
  const int eb = eu + 11 < 0 ? 0 : eu + 11 > 15 ? 15 : eu + 11;
  float m = eb == 0 ? std::rint(a * 16384.0f) : std::rint((a / float(std::exp2(eu)) - 1.0f) * 16.0f);
  m = m < 0 ? 0 : m > 15 ? 15 : m;
  return uint8_t(eb * 16 + int(m));
}

struct Block {
  uint8_t code;
  std::vector<int> idx;
};

inline Block encode_bnb(const float* x, const std::vector<float>& cb) {
  float amax = 0;
  for (int j = 0; j < 32; ++j) amax = std::fmax(amax, std::fabs(x[j]));
  Block r{e4m4_bnb(amax), {}};
  const float div = amax > 1e-8f ? amax : 1e-8f;
  for (int j = 0; j < 32; ++j) r.idx.push_back(nearest(x[j] / div, cb));
  return r;
}

inline Block encode_search(const float* x, const std::vector<float>& cb, int s) {
  float amax = 0;
  for (int j = 0; j < 32; ++j) amax = std::fmax(amax, std::fabs(x[j]));
  const float a = std::ldexp(amax, -s);
  int lo = 0, hi = 255;
  for (int c = 0; c < 256; ++c) if (kbit::e4m4_decode(uint8_t(c)) <= a) lo = c;
  for (int c = 255; c >= 0; --c) if (kbit::e4m4_decode(uint8_t(c)) >= a) hi = c;
  std::vector<float> cbs;
  for (float v : cb) cbs.push_back(std::ldexp(v, s));
  auto try_code = [&](int c, double* sse) {
    const float dec = kbit::e4m4_decode(uint8_t(c));
    const float d = std::ldexp(dec, s);
    std::vector<int> idx;
    volatile double acc = 0.0;  // volatile: one rounding per step, no contraction
    for (int j = 0; j < 32; ++j) {
      idx.push_back(nearest(d == 0 ? 0.0f : x[j] / d, cb));
      volatile double prod = double(cbs[idx[j]]) * double(dec);
      volatile double diff = double(x[j]) - prod;
      volatile double sq = diff * diff;
      acc = acc + sq;
    }
    *sse = acc;
    return idx;
  };
  double sse_hi = 0, sse_lo = 0;
  Block r{uint8_t(hi), try_code(hi, &sse_hi)};
  if (lo != hi) {
    auto idx_lo = try_code(lo, &sse_lo);
    if (sse_lo < sse_hi) r = {uint8_t(lo), idx_lo};
  }
  return r;
}

inline int scale_exp(float A) {
  if (A == 0) return 0;
  int s = -200;
  while (std::ldexp(A, -s) > 31.0f) ++s;  // smallest s with A / 2^s <= 31
  return s;
}

}  // namespace spec
