// Block encoders of FORMAT §4: the E4M4 absmax code, the per-tensor scale exponent, the index
// rule and the bit planes. Two encoders:
//   bnb    - upstream compatible: s = 0, upstream's E4M4 rounding (no carry, m clamped), indices
//            against the true amax; refuses blocks with amax >= 32 (upstream silently wraps them).
//   search - default: a per-tensor power-of-two scale, then per block the E4M4 neighbour (below or
//            above amax) with the smaller float64 SSE; ties keep the one above.
// The hot path (indices, bit planes) has a scalar and an AVX2 version chosen at run time; both
// are checked against the plain spec scan (nearest_index_ref) in tests/test_encode.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kbit/codebook.h"
#include "kbit/encode_simd.h"
#include "kbit/format.h"

namespace kbit {

enum class Encoder { search, bnb };
const char* encoder_name(Encoder e);
Encoder parse_encoder(const std::string& s);  // throws kbit::Error on anything but search|bnb

// bnb encoders' E4M4 rule (FORMAT §4). Requires 0 <= a < 32 (the caller refuses larger).
uint8_t e4m4_encode_bnb(float a);

// Search candidates: lo = largest code with decode <= a, hi = smallest code with decode >= a
// (lo == hi when a is exactly representable; both 0 when a == 0). Requires 0 <= a <= 31.
struct E4M4Bracket {
  uint8_t lo, hi;
};
E4M4Bracket e4m4_bracket(float a);

// Search encoder's per-tensor scale: the smallest integer s with A / 2^s <= 31 (s = 0 if A == 0).
int choose_scale_exp(float tensor_amax);

// The index rule, literally: scan i = 0..n-1, replace only on a strictly smaller |t - cb[i]|.
int nearest_index_ref(float t, const float* cb, int n);

// Encodes blocks of one tensor (one codebook, one s, one encoder). Thread-safe (const).
class BlockEncoder {
 public:
  BlockEncoder(const Codebook& cb, Encoder encoder, int scale_exp);

  // x: 32 finite fp32 values. Writes k bit-plane words; returns the absmax code.
  // bnb: throws kbit::Error if amax >= 32 (the caller adds the tensor and block to the message).
  uint8_t encode(const float* x, uint32_t* words) const;

  // Indices of 32 values t under the index rule (exposed for tests and the benchmark).
  void nearest_indices(const float* t, uint8_t* idx) const;

  int bits() const { return bits_; }
  int scale_exp() const { return scale_exp_; }
  Encoder encoder() const { return encoder_; }
  const std::vector<float>& codebook() const { return cb_; }         // unscaled
  const std::vector<float>& stored_codebook() const { return cbs_; }  // cb * 2^s

 private:
  uint8_t encode_bnb(const float* x, uint32_t* words) const;
  uint8_t encode_search(const float* x, uint32_t* words) const;
  // t_j = x_j / divisor (0 if divisor == 0), indices, bit planes; idx may be null.
  void encode_indices(const float* x, float divisor, uint32_t* words, uint8_t* idx) const;
  double block_sse(const float* x, const uint8_t* idx, float scale) const;

  int bits_;
  Encoder encoder_;
  int scale_exp_;
  bool use_avx2_;     // AVX2 for amax, SSE terms and (without AVX-512) the index loop
  bool use_avx512_;   // AVX-512 for the index loop
  std::vector<float> cb_;
  std::vector<float> cbs_;
  alignas(64) float cb_pad_[32] = {};   // cb_ and cbs_ padded for the AVX2 table lookups
  alignas(64) float cbs_pad_[32] = {};
  detail::DecisionThresholds thresholds_;
};

// Packs 32 indices into k bit-plane words (bit j of word b = bit b of idx[j]) and back.
void pack_bitplanes(const uint8_t* idx, int k, uint32_t* words);
void unpack_bitplanes(const uint32_t* words, int k, uint8_t* idx);

// The vector path encoders use: the best the CPU supports, capped by KBIT_SIMD=scalar|avx2|avx512
// in the environment or by set_simd_limit (tests and the benchmark). Affects encoders made
// afterwards. Every path gives the same bytes.
enum class SimdPath { scalar = 0, avx2 = 1, avx512 = 2 };
const char* simd_path_name(SimdPath p);
SimdPath simd_path();
void set_simd_limit(SimdPath limit);

}  // namespace kbit
