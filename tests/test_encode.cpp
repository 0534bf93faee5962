// Encoders (FORMAT §4) against the literal transcription in spec_encoder.h, on random and
// adversarial blocks, for the scalar and AVX2 paths; the bnb quirks; search ties; SQNR.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "kbit/encode.h"
#include "kbit/error.h"
#include "kbit/quantize.h"
#include "kbit/rng.h"
#include "reference/dequantize.h"
#include "spec_encoder.h"

using namespace kbit;

namespace {

// Blocks that stress the encoder: gaussian, heavy tails, one outlier, all zeros, denormal-small,
// values sitting exactly on codebook midpoints, repeated magnitudes.
std::vector<float> make_block(Rng& rng, int kind, const std::vector<float>& cb) {
  std::vector<float> x(32, 0.0f);
  const float scale = float(std::ldexp(1.0, int(rng.range(-12, 3))));
  for (int j = 0; j < 32; ++j) {
    switch (kind % 7) {
      case 0: x[j] = float(rng.normal()) * scale; break;
      case 1: { const double n = rng.normal(); x[j] = float(n * n * n) * scale; break; }
      case 2: x[j] = j == 5 ? 1000.0f * scale : float(rng.normal()) * scale * 0.01f; break;
      case 3: x[j] = 0.0f; break;
      case 4: x[j] = float(rng.normal()) * 1e-40f; break;  // fp32 subnormals
      case 5: {  // +-midpoints between neighbouring codebook entries, amax pinned to 1 * scale
        const size_t i = size_t(rng.below(int64_t(cb.size()) - 1));
        x[j] = (j == 0) ? scale : 0.5f * (cb[i] + cb[i + 1]) * scale * (j % 2 ? -1.0f : 1.0f);
        break;
      }
      case 6: x[j] = (j % 2 ? -1.0f : 1.0f) * scale * float(1 + rng.below(3)) / 3.0f; break;
    }
  }
  return x;
}

// Every vector path the CPU has, capped one at a time; returns false if `path` is not available.
bool use_path(SimdPath path) {
  set_simd_limit(path);
  return simd_path() == path;
}
constexpr SimdPath kPaths[] = {SimdPath::scalar, SimdPath::avx2, SimdPath::avx512};

void check_against_spec(SimdPath simd, Encoder enc, const Codebook& cb, uint64_t seed) {
  REQUIRE(use_path(simd));
  Rng rng(seed);
  for (int trial = 0; trial < 700; ++trial) {
    const std::vector<float> x = make_block(rng, trial, cb.values);
    float amax = 0;
    for (float v : x) amax = std::fmax(amax, std::fabs(v));
    if (enc == Encoder::bnb && amax >= 32.0f) continue;
    const int s = enc == Encoder::bnb ? 0 : spec::scale_exp(amax * float(1 + rng.below(4)));
    const spec::Block want = enc == Encoder::bnb ? spec::encode_bnb(x.data(), cb.values)
                                                 : spec::encode_search(x.data(), cb.values, s);
    const BlockEncoder be(cb, enc, s);
    uint32_t words[5];
    const uint8_t code = be.encode(x.data(), words);
    CAPTURE(trial); CAPTURE(cb.name); CAPTURE(cb.bits); CAPTURE(simd_path_name(simd));
    REQUIRE(int(code) == int(want.code));
    for (int j = 0; j < 32; ++j) REQUIRE(unpack_index(words, j, cb.bits) == want.idx[j]);
  }
  set_simd_limit(SimdPath::avx512);
}

std::vector<Codebook> test_codebooks(int k) {
  std::vector<Codebook> cbs = {builtin_codebook("nf", k), builtin_codebook("bnf", k)};
  // a lopsided user codebook with repeated values (the scan's ties must go to the lowest index)
  Codebook odd{"odd", k, {}};
  for (int i = 0; i < (1 << k); ++i) odd.values.push_back(i < 3 ? -0.5f : float(i * i) / float((1 << k) * (1 << k)));
  cbs.push_back(odd);
  return cbs;
}

double sqnr_db(const std::vector<float>& x, const std::vector<float>& y) {
  double sig = 0, err = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sig += double(x[i]) * x[i];
    err += (double(x[i]) - y[i]) * (double(x[i]) - y[i]);
  }
  return 10.0 * std::log10(sig / err);
}

}  // namespace

TEST_CASE("encoders equal the FORMAT §4 transcription (scalar, AVX2 and AVX-512 paths, k = 2..5)") {
  for (SimdPath simd : kPaths) {
    if (!use_path(simd)) {
      MESSAGE(simd_path_name(simd) << " not available on this CPU: that path is not tested here");
      continue;
    }
    for (int k = 2; k <= 5; ++k)
      for (const Codebook& cb : test_codebooks(k))
        for (Encoder enc : {Encoder::bnb, Encoder::search}) check_against_spec(simd, enc, cb, 1000 + k);
  }
}

TEST_CASE("index rule: the fast paths equal the literal scan for t around every midpoint") {
  for (int k = 2; k <= 5; ++k)
    for (const Codebook& cb : test_codebooks(k)) {
      for (SimdPath simd : kPaths) {
        if (!use_path(simd)) continue;
        const BlockEncoder be(cb, Encoder::bnb, 0);
        std::vector<float> ts;
        for (size_t i = 0; i + 1 < cb.values.size(); ++i) {
          float mid = 0.5f * (cb.values[i] + cb.values[i + 1]);
          for (int step = 0; step < 6; ++step) mid = std::nextafter(mid, -2.0f);
          for (int step = 0; step < 12; ++step, mid = std::nextafter(mid, 2.0f)) ts.push_back(mid);
        }
        for (float v : {-100.0f, -5.0f, -2.0f, -1.0f, 0.0f, -0.0f, 1.0f, 2.0f, 4.0f, 4.5f, 1e-30f, 1e30f}) ts.push_back(v);
        while (ts.size() % 32) ts.push_back(0.5f);
        for (size_t b = 0; b < ts.size(); b += 32) {
          uint8_t idx[32];
          be.nearest_indices(ts.data() + b, idx);
          for (int j = 0; j < 32; ++j) {
            CAPTURE(ts[b + j]); CAPTURE(simd_path_name(simd));
            REQUIRE(int(idx[j]) == nearest_index_ref(ts[b + j], cb.values.data(), int(cb.values.size())));
          }
        }
      }
      set_simd_limit(SimdPath::avx512);
    }
}

TEST_CASE("bnb E4M4: every representable value round-trips and upstream quirks hold") {
  for (int c = 1; c < 256; ++c) CHECK(int(e4m4_encode_bnb(e4m4_decode(uint8_t(c)))) == c);
  CHECK(e4m4_encode_bnb(0.0f) == 0);
  // no mantissa carry: [1.96875, 2) encodes as 1.9375 (m = 16 clamped to 15), not 2.0
  CHECK(e4m4_encode_bnb(1.99f) == 0xBF);
  CHECK(e4m4_decode(e4m4_encode_bnb(1.99f)) == 1.9375f);
  CHECK(e4m4_encode_bnb(1.96875f) == 0xBF);  // rint(15.5) = 16 -> clamped
  CHECK(e4m4_encode_bnb(1.90625f) == 0xBE);  // rint(14.5) = 14: half to even
  // below 2^-10 the subnormal branch: m = rint(a * 2^14), clamped
  CHECK(e4m4_encode_bnb(std::ldexp(3.0f, -14)) == 0x03);
  CHECK(e4m4_encode_bnb(std::ldexp(15.9f, -14)) == 0x0F);
  CHECK(e4m4_encode_bnb(std::ldexp(1.0f, -16)) == 0x00);  // rint(0.25) = 0: the block becomes 0
}

TEST_CASE("bnb E4M4: equals the spec transcription on a sweep of floats from 2^-16 to 32") {
  for (uint32_t bits = std::bit_cast<uint32_t>(std::ldexp(1.0f, -16)); bits < std::bit_cast<uint32_t>(32.0f); bits += 97) {
    const float a = std::bit_cast<float>(bits);
    REQUIRE(int(e4m4_encode_bnb(a)) == int(spec::e4m4_bnb(a)));
  }
}

TEST_CASE("search E4M4: every representable value is its own single candidate") {
  for (int c = 0; c < 256; ++c) {
    const E4M4Bracket br = e4m4_bracket(e4m4_decode(uint8_t(c)));
    CHECK(int(br.lo) == c);
    CHECK(int(br.hi) == c);
  }
  const E4M4Bracket br = e4m4_bracket(1.03f);
  CHECK(br.lo == 0xB0);
  CHECK(br.hi == 0xB1);
  CHECK(choose_scale_exp(31.0f) == 0);
  CHECK(choose_scale_exp(31.5f) == 1);
  CHECK(choose_scale_exp(1.0f) == -4);
  CHECK(choose_scale_exp(0.0f) == 0);
  CHECK(choose_scale_exp(std::ldexp(1.0f, -130)) == -134);
}

TEST_CASE("search encoder: SSE tie keeps the upper code, otherwise the smaller SSE wins") {
  const Codebook cb{"tie", 2, {-1.0f, 0.0f, 0.5f, 1.0f}};
  std::vector<float> x(32, 0.0f);
  // A = 1.03125 -> s = -4, a = 16.5, exactly between codes 0xF0 (16) and 0xF1 (17): both
  // reconstructions miss by 0.03125, so SSE ties and the upper code is kept.
  x[0] = 1.03125f;
  REQUIRE(choose_scale_exp(x[0]) == -4);
  uint32_t words[2];
  CHECK(int(BlockEncoder(cb, Encoder::search, -4).encode(x.data(), words)) == 0xF1);
  x[0] = 1.03f;  // closer to 16/16: the lower code has the smaller SSE
  CHECK(int(BlockEncoder(cb, Encoder::search, -4).encode(x.data(), words)) == 0xF0);
  x[0] = 1.0625f - 0.03f;  // closer to 17/16
  CHECK(int(BlockEncoder(cb, Encoder::search, -4).encode(x.data(), words)) == 0xF1);
}

TEST_CASE("bnb encoder refuses amax >= 32 naming the tensor and the block") {
  std::vector<float> w(4 * 64, 0.01f);
  w[2 * 64 + 40] = 40.0f;  // row 2, block 1
  const TensorView view{w.data(), DType::F32, 1, 4, 64, false};
  QuantizeOptions opt;
  opt.encoder = Encoder::bnb;
  CHECK_THROWS_WITH_AS(quantize_tensor("layers.0.mlp.down_proj.weight", view, builtin_codebook("nf", 4), opt),
                       doctest::Contains("tensor 'layers.0.mlp.down_proj.weight' row 2 block 1 (columns 32..63): absmax 40 >= 32"),
                       Error);
  w[2 * 64 + 40] = 31.99f;  // just below: accepted
  CHECK_NOTHROW(quantize_tensor("t", view, builtin_codebook("nf", 4), opt));
  opt.encoder = Encoder::search;  // search scales the tensor instead
  w[2 * 64 + 40] = 40.0f;
  CHECK(quantize_tensor("t", view, builtin_codebook("nf", 4), opt).scale_exp == 1);
}

TEST_CASE("non-finite weights and bad shapes are refused by name") {
  std::vector<float> w(2 * 32, 0.5f);
  w[32 + 7] = NAN;
  const TensorView view{w.data(), DType::F32, 1, 2, 32, false};
  CHECK_THROWS_WITH_AS(quantize_tensor("q", view, builtin_codebook("nf", 3)),
                       doctest::Contains("tensor 'q' row 1 block 0 (columns 0..31): element 7 is NaN"), Error);
  QuantizeOptions bnb;
  bnb.encoder = Encoder::bnb;
  CHECK_THROWS_WITH_AS(quantize_tensor("q", view, builtin_codebook("nf", 3), bnb), doctest::Contains("NaN"), Error);
  const TensorView bad{w.data(), DType::F32, 1, 1, 48, false};
  CHECK_THROWS_WITH_AS(quantize_tensor("odd", bad, builtin_codebook("nf", 3)),
                       doctest::Contains("K = 48 (the last dimension) is not a multiple of 32"), Error);
}

TEST_CASE("SQNR: search >= bnb on gaussian and heavy-tailed weights (k = 2..5)") {
  Rng rng(7);
  const int64_t N = 256, K = 1024;
  std::vector<float> gauss(size_t(N * K)), heavy(size_t(N * K));
  for (auto& v : gauss) v = float(rng.normal() * 0.02);
  for (auto& v : heavy) {  // Student-t with 3 degrees of freedom, scaled like weights
    const double z = rng.normal();
    double chi = 0;
    for (int d = 0; d < 3; ++d) {
      const double g = rng.normal();
      chi += g * g;
    }
    v = float(z / std::sqrt(chi / 3.0 + 1e-12) * 0.02);
  }
  for (int k = 2; k <= 5; ++k)
    for (auto* data : {&gauss, &heavy}) {
      double sqnr[2];
      for (Encoder enc : {Encoder::bnb, Encoder::search}) {
        QuantizeOptions opt;
        opt.encoder = enc;
        const TensorView view{data->data(), DType::F32, 1, N, K, false};
        const QuantizedTensor q = quantize_tensor("w", view, builtin_codebook("nf", k), opt);
        std::vector<float> back(data->size());
        dequantize_ref(q.view(), back.data());
        sqnr[enc == Encoder::search] = sqnr_db(*data, back);
      }
      const std::string what = data == &gauss ? "gaussian" : "student-t3";
      MESSAGE("k=" << k << " " << what << ": SQNR bnb " << sqnr[0] << " dB, search " << sqnr[1] << " dB");
      CHECK(sqnr[1] >= sqnr[0]);
    }
}
