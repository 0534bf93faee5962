// Scalar block encoders. The AVX2 versions of the hot loops live in encode_avx2.cpp and must give
// the same bytes; tests/test_encode.cpp compares the two on random and adversarial blocks.
#include "kbit/encode.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <array>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "kbit/encode_simd.h"
#include "kbit/error.h"

namespace kbit {
namespace {

SimdPath g_simd_limit = [] {
  const char* env = std::getenv("KBIT_SIMD");
  if (!env) return SimdPath::avx512;
  const std::string v = env;
  return v == "scalar" ? SimdPath::scalar : v == "avx2" ? SimdPath::avx2 : SimdPath::avx512;
}();

// Decoded values of all 256 codes, ascending (the codes strictly increase, FORMAT §3).
const std::array<float, 256>& e4m4_table() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (int c = 0; c < 256; ++c) t[c] = e4m4_decode(static_cast<uint8_t>(c));
    return t;
  }();
  return table;
}

}  // namespace

namespace detail {

DecisionThresholds make_thresholds(const float* cb, int n) {
  DecisionThresholds th;
  for (float& v : th.theta) v = std::numeric_limits<float>::infinity();
  // t stays within |t| <= 2 in both encoders (x / amax for bnb; a / dec(c_lo) < 2 for search),
  // proven for 4 to keep a margin; lanes beyond it take the scalar rule anyway.
  th.t_max = 4.0f;
  float cmax = 0.0f;
  for (int i = 0; i < n; ++i) cmax = std::max(cmax, std::fabs(cb[i]));
  const float ulp = std::ldexp(1.0f, std::ilogb(th.t_max + cmax) + 1 - 23);  // ulp of the largest |t - cb|
  for (int i = 0; i + 1 < n; ++i)
    if (!(cb[i + 1] - cb[i] >= 2.0f * ulp)) return th;  // valid stays false
  auto key = [](float f) {  // float -> integer in the same order
    const int32_t b = std::bit_cast<int32_t>(f);
    return b < 0 ? -(b & 0x7fffffff) : b;
  };
  auto unkey = [](int32_t k) { return std::bit_cast<float>(k < 0 ? (-k) | int32_t(0x80000000) : k); };
  for (int i = 0; i + 1 < n; ++i) {
    const float lo = cb[i], hi = cb[i + 1];
    auto upper_wins = [&](float t) { return std::fabs(t - hi) < std::fabs(t - lo); };
    int32_t a = key(lo), b = key(hi);  // upper_wins(lo) is false, upper_wins(hi) is true
    while (b - a > 1) {
      const int32_t mid = a + (b - a) / 2;
      (upper_wins(unkey(mid)) ? b : a) = mid;
    }
    th.theta[i] = unkey(b);
  }
  th.valid = true;
  return th;
}

}  // namespace detail

const char* encoder_name(Encoder e) { return e == Encoder::bnb ? "bnb" : "search"; }

Encoder parse_encoder(const std::string& s) {
  if (s == "search") return Encoder::search;
  if (s == "bnb") return Encoder::bnb;
  throw Error("unknown encoder '" + s + "': use search (default) or bnb");
}

const char* simd_path_name(SimdPath p) {
  return p == SimdPath::avx512 ? "avx512" : p == SimdPath::avx2 ? "avx2" : "scalar";
}

SimdPath simd_path() {
  SimdPath best = SimdPath::scalar;
  if (avx2::cpu_supported()) best = avx512::cpu_supported() ? SimdPath::avx512 : SimdPath::avx2;
  return std::min(best, g_simd_limit);
}

void set_simd_limit(SimdPath limit) { g_simd_limit = limit; }

uint8_t e4m4_encode_bnb(float a) {
  if (!(a > 0.0f)) return 0;
  const uint32_t bits = std::bit_cast<uint32_t>(a);
  const int biased = static_cast<int>(bits >> 23);
  if (biased >= 127 - 10 && biased <= 127 + 4) {
    // Fast path for 2^-10 <= a < 32 (eb = eu + 11 in 1..15): a / 2^eu is a's mantissa with a
    // zero exponent, exactly; rint by the 1.5 * 2^23 trick (round to nearest even, |v| <= 16).
    const int eu = biased - 127;
    const float frac = std::bit_cast<float>((bits & 0x7fffffu) | 0x3f800000u);
    const float m = ((frac - 1.0f) * 16.0f + 0x1.8p23f) - 0x1.8p23f;
    return static_cast<uint8_t>((eu + 11) * 16 + std::min(static_cast<int>(m), 15));
  }
  const int eu = std::ilogb(a);  // floor(log2 a), exact (also for subnormal a)
  const int eb = std::clamp(eu + 11, 0, 15);
  float m;
  if (eb == 0)
    m = std::nearbyint(a * 0x1p14f);
  else
    m = std::nearbyint((a / std::ldexp(1.0f, eu) - 1.0f) * 16.0f);
  const int mi = std::clamp(static_cast<int>(m), 0, 15);  // no carry into the exponent (upstream)
  return static_cast<uint8_t>(eb * 16 + mi);
}

E4M4Bracket e4m4_bracket(float a) {
  const auto& table = e4m4_table();
  const auto it = std::lower_bound(table.begin(), table.end(), a);  // first decode >= a
  const int hi = static_cast<int>(it - table.begin());
  if (hi >= 256) throw Error("e4m4_bracket: value above 31 (scale exponent chosen wrongly)");
  if (table[hi] == a) return {static_cast<uint8_t>(hi), static_cast<uint8_t>(hi)};
  return {static_cast<uint8_t>(hi - 1), static_cast<uint8_t>(hi)};
}

int choose_scale_exp(float tensor_amax) {
  if (!(tensor_amax > 0.0f)) return 0;
  int s = std::ilogb(tensor_amax) - 4;  // 2^4 <= A/2^s < 2^5: close to the answer
  while (std::ldexp(tensor_amax, -s) > kE4M4Max) ++s;
  while (std::ldexp(tensor_amax, -(s - 1)) <= kE4M4Max) --s;
  return s;
}

int nearest_index_ref(float t, const float* cb, int n) {
  int best = 0;
  float best_dist = std::fabs(t - cb[0]);
  for (int i = 1; i < n; ++i) {
    const float d = std::fabs(t - cb[i]);
    if (d < best_dist) {
      best_dist = d;
      best = i;
    }
  }
  return best;
}

void pack_bitplanes(const uint8_t* idx, int k, uint32_t* words) {
  for (int b = 0; b < k; ++b) {
    uint32_t w = 0;
    for (int j = 0; j < kBlockSize; ++j) w |= uint32_t((idx[j] >> b) & 1u) << j;
    words[b] = w;
  }
}

void unpack_bitplanes(const uint32_t* words, int k, uint8_t* idx) {
  for (int j = 0; j < kBlockSize; ++j) idx[j] = static_cast<uint8_t>(unpack_index(words, j, k));
}

BlockEncoder::BlockEncoder(const Codebook& cb, Encoder encoder, int scale_exp)
    : bits_(cb.bits), encoder_(encoder), scale_exp_(scale_exp),
      use_avx2_(simd_path() >= SimdPath::avx2), use_avx512_(simd_path() == SimdPath::avx512),
      cb_(cb.values) {
  validate_codebook(cb);
  if (encoder == Encoder::bnb && scale_exp != 0)
    throw Error("the bnb encoder has no scale exponent (got " + std::to_string(scale_exp) + ")");
  cbs_.resize(cb_.size());
  for (size_t i = 0; i < cb_.size(); ++i) {
    cbs_[i] = std::ldexp(cb_[i], scale_exp);
    cb_pad_[i] = cb_[i];
    cbs_pad_[i] = cbs_[i];
  }
  thresholds_ = detail::make_thresholds(cb_.data(), codebook_size(bits_));
}

void BlockEncoder::nearest_indices(const float* t, uint8_t* idx) const {
  uint32_t words[kMaxBits];
  encode_indices(t, 1.0f, words, idx);  // t / 1 == t exactly: the same path encode() takes
}

void BlockEncoder::encode_indices(const float* x, float divisor, uint32_t* words, uint8_t* idx) const {
  const int n = codebook_size(bits_);
  if (use_avx512_) {
    avx512::encode_indices(x, divisor, cb_pad_, thresholds_.valid ? &thresholds_ : nullptr, n, bits_, words, idx);
    return;
  }
  if (use_avx2_) {
    avx2::encode_indices(x, divisor, cb_pad_, n, bits_, words, idx);
    return;
  }
  uint8_t local[kBlockSize];
  uint8_t* out = idx ? idx : local;
  for (int j = 0; j < kBlockSize; ++j) {
    const float t = divisor == 0.0f ? 0.0f : x[j] / divisor;
    out[j] = static_cast<uint8_t>(detail::nearest_index_sorted(t, cb_.data(), n));
  }
  pack_bitplanes(out, bits_, words);
}

// FORMAT §4: sum over j in order of (x_j - cb_stored[idx_j] * scale)^2, every step in float64.
double BlockEncoder::block_sse(const float* x, const uint8_t* idx, float scale) const {
  double sq[kBlockSize];
  if (use_avx2_) {
    avx2::squared_errors(x, idx, cbs_pad_, codebook_size(bits_), scale, sq);
  } else {
    for (int j = 0; j < kBlockSize; ++j) {
      const double prod = double(cbs_[idx[j]]) * double(scale);
      const double diff = double(x[j]) - prod;
      sq[j] = diff * diff;
    }
  }
  double sse = 0.0;
  for (int j = 0; j < kBlockSize; ++j) sse += sq[j];
  return sse;
}

uint8_t BlockEncoder::encode(const float* x, uint32_t* words) const {
  return encoder_ == Encoder::bnb ? encode_bnb(x, words) : encode_search(x, words);
}

static float block_amax(const float* x, bool use_avx2) {
  float amax = use_avx2 ? avx2::abs_max(x) : 0.0f;
  if (!use_avx2)
    for (int j = 0; j < kBlockSize; ++j) amax = std::max(amax, std::fabs(x[j]));
  if (!std::isfinite(amax)) {
    for (int j = 0; j < kBlockSize; ++j)
      if (!std::isfinite(x[j]))
        throw Error("element " + std::to_string(j) + " of the block is " +
                    (std::isnan(x[j]) ? "NaN" : "infinite") + "; fix the source weights");
  }
  return amax;
}

uint8_t BlockEncoder::encode_bnb(const float* x, uint32_t* words) const {
  const float amax = block_amax(x, use_avx2_);
  if (amax >= 32.0f) {
    std::ostringstream msg;
    msg << "absmax " << amax << " >= 32 cannot be stored by the bnb encoder (upstream's E4M4 rule "
        << "would silently wrap it); use --encoder search, which scales the tensor";
    throw Error(msg.str());
  }
  encode_indices(x, std::max(amax, 1e-8f), words, nullptr);  // against the TRUE amax (upstream)
  return e4m4_encode_bnb(amax);
}

uint8_t BlockEncoder::encode_search(const float* x, uint32_t* words) const {
  const float amax = block_amax(x, use_avx2_);
  const float a = std::ldexp(amax, -scale_exp_);
  if (!(a <= kE4M4Max))
    throw Error("block absmax exceeds the tensor's scale (scale_exp " + std::to_string(scale_exp_) +
                "); the scale must come from choose_scale_exp over the whole tensor");
  const E4M4Bracket br = e4m4_bracket(a);
  const float dec_hi = e4m4_decode(br.hi);
  if (br.lo == br.hi) {
    encode_indices(x, std::ldexp(dec_hi, scale_exp_), words, nullptr);
    return br.hi;
  }
  const float dec_lo = e4m4_decode(br.lo);
  uint8_t idx_hi[kBlockSize], idx_lo[kBlockSize];
  uint32_t words_lo[kMaxBits];
  encode_indices(x, std::ldexp(dec_hi, scale_exp_), words, idx_hi);
  encode_indices(x, std::ldexp(dec_lo, scale_exp_), words_lo, idx_lo);
  if (block_sse(x, idx_lo, dec_lo) < block_sse(x, idx_hi, dec_hi)) {  // a tie keeps hi
    for (int b = 0; b < bits_; ++b) words[b] = words_lo[b];
    return br.lo;
  }
  return br.hi;
}

}  // namespace kbit
