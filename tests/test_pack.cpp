// Bit planes (FORMAT §5): pack/unpack round trips for k = 2..5 on random and adversarial index
// patterns, scalar vs AVX2, the bit order, and hand-derived golden blocks.
#include <doctest/doctest.h>

#include <vector>

#include "kbit/encode.h"
#include "kbit/quantize.h"
#include "kbit/rng.h"

using namespace kbit;

TEST_CASE("bit planes: bit j of word b is bit b of idx_j") {
  uint8_t idx[32] = {5, 2};  // FORMAT example (k = 3): elements 0 and 1
  uint32_t w[3];
  pack_bitplanes(idx, 3, w);
  CHECK((w[0] & 3u) == 1u);
  CHECK((w[1] & 3u) == 2u);
  CHECK((w[2] & 3u) == 1u);
}

// The vector paths pack inside the encoder; their words are checked on every path against the
// spec transcription in test_encode.cpp.
TEST_CASE("bit planes: round trips for k = 2..5") {
  Rng rng(11);
  for (int k = 2; k <= 5; ++k) {
    const int n = 1 << k;
    std::vector<std::vector<uint8_t>> patterns;
    patterns.push_back(std::vector<uint8_t>(32, 0));
    patterns.push_back(std::vector<uint8_t>(32, uint8_t(n - 1)));
    std::vector<uint8_t> alt(32), ramp(32);
    for (int j = 0; j < 32; ++j) { alt[j] = uint8_t(j % 2 ? n - 1 : 0); ramp[j] = uint8_t(j % n); }
    patterns.push_back(alt);
    patterns.push_back(ramp);
    for (int t = 0; t < 200; ++t) {
      std::vector<uint8_t> r(32);
      for (auto& v : r) v = uint8_t(rng.below(n));
      patterns.push_back(r);
    }
    for (const auto& p : patterns) {
      uint32_t w[5] = {};
      pack_bitplanes(p.data(), k, w);
      uint8_t back[32];
      unpack_bitplanes(w, k, back);
      for (int j = 0; j < 32; ++j) REQUIRE(back[j] == p[j]);
    }
  }
}

TEST_CASE("golden: k = 2 nf block, both encoders (derived by hand)") {
  // x = [1, -1, 0.25, -0.25, 0 ...]. nf k=2 = {-1, -0.2770, 0.2770, 1}. Indices: 3, 0, 2, 1, and
  // 0 sits exactly between entries 1 and 2: the tie goes to the lower index, 1.
  // word0 = bits 0 of [3,0,2,1,1,1,...] = 1,0,0,1,1,... = 0xFFFFFFF9; word1 = 1,0,1,0,0... = 0x5.
  std::vector<float> x(32, 0.0f);
  x[0] = 1.0f; x[1] = -1.0f; x[2] = 0.25f; x[3] = -0.25f;
  const TensorView view{x.data(), DType::F32, 1, 1, 32, false};
  QuantizeOptions bnb;
  bnb.encoder = Encoder::bnb;
  const QuantizedTensor qb = quantize_tensor("g", view, builtin_codebook("nf", 2), bnb);
  CHECK(qb.packed == std::vector<uint32_t>{0xFFFFFFF9u, 0x5u, 0u, 0u});  // + the pad half-tile
  CHECK(qb.absmax == std::vector<uint8_t>{0xB0, 0x00});                 // amax 1.0 -> e=11, m=0
  // search: A = 1 -> s = -4, a = 16 = code 0xF0 exactly; d = 16 * 2^-4 = 1, same indices.
  const QuantizedTensor qs = quantize_tensor("g", view, builtin_codebook("nf", 2));
  CHECK(qs.scale_exp == -4);
  CHECK(qs.packed == qb.packed);
  CHECK(qs.absmax == std::vector<uint8_t>{0xF0, 0x00});
  CHECK(qs.codebook_stored[3] == 0.0625f);
}

TEST_CASE("golden: k = 3 bnb block with amax 0.75 (derived by hand)") {
  // nf k=3 ~ {-1, -.5783, -.3186, -.1025, .1025, .3186, .5783, 1}; amax = 0.75 -> code: eu = -1,
  // eb = 10, m = rint((1.5 - 1) * 16) = 8 -> 0xA8 (decodes to 0.75). t = x / 0.75:
  // x0 = 0.75 -> t 1 -> idx 7; x1 = -0.3 -> t -0.4 -> nearest -0.3186 -> idx 2; x2 = 0.1 -> t
  // 0.1333 -> idx 4; rest 0 -> tie between 3 and 4 -> idx 3.
  // word0: [1,0,0,1,1,...] -> 0xFFFFFFF9; word1: [1,1,0,1,...] -> 0xFFFFFFFB; word2: [1,0,1,0...] -> 0x5
  std::vector<float> x(32, 0.0f);
  x[0] = 0.75f; x[1] = -0.3f; x[2] = 0.1f;
  const TensorView view{x.data(), DType::F32, 1, 1, 32, false};
  QuantizeOptions bnb;
  bnb.encoder = Encoder::bnb;
  const QuantizedTensor q = quantize_tensor("g", view, builtin_codebook("nf", 3), bnb);
  CHECK(q.packed[0] == 0xFFFFFFF9u);
  CHECK(q.packed[1] == 0xFFFFFFFBu);
  CHECK(q.packed[2] == 0x5u);
  CHECK(int(q.absmax[0]) == 0xA8);
}
