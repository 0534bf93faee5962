// Tiled layout in use: quantize_tensor writes exactly flat_to_tiled(per-block encodings), the
// flat <-> tiled conversions round-trip, fused experts are expert-major, and results do not
// depend on the thread count or the source dtype's container.
#include <doctest/doctest.h>

#include <vector>

#include "kbit/dtype.h"
#include "kbit/quantize.h"
#include "kbit/rng.h"

using namespace kbit;

namespace {
std::vector<float> gaussian(int64_t n, uint64_t seed, double sd = 0.05) {
  Rng rng(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = float(rng.normal() * sd);
  return v;
}
}  // namespace

TEST_CASE("tiled vs flat: quantize_tensor == flat_to_tiled(block-by-block encoding)") {
  for (int k = 2; k <= 5; ++k)
    for (int64_t N : {1, 8, 576})
      for (int64_t K : {32, 96, 256}) {
        CAPTURE(k); CAPTURE(N); CAPTURE(K);
        const auto w = gaussian(N * K, uint64_t(k * 1000 + N + K));
        const TensorView view{w.data(), DType::F32, 1, N, K, false};
        const Codebook cb = builtin_codebook("nf", k);
        const QuantizedTensor q = quantize_tensor("w", view, cb);
        // the flat layout, encoded one block at a time with the same scale
        const BlockEncoder be(cb, Encoder::search, q.scale_exp);
        const int64_t kbs = K / 32;
        std::vector<uint32_t> words(size_t(N * kbs * k));
        std::vector<uint8_t> absmax(size_t(N * kbs));
        for (int64_t n = 0; n < N; ++n)
          for (int64_t kb = 0; kb < kbs; ++kb)
            absmax[size_t(n * kbs + kb)] = be.encode(&w[size_t(n * K + kb * 32)], &words[size_t((n * kbs + kb) * k)]);
        std::vector<uint32_t> packed(size_t(tiled_words(N, K, k)), 0xDEADBEEFu);
        std::vector<uint8_t> absmax_t(size_t(tiled_absmax_bytes(N, K)), 0xAB);
        flat_to_tiled(words.data(), absmax.data(), N, K, k, packed.data(), absmax_t.data());
        CHECK(packed == q.packed);
        CHECK(absmax_t == q.absmax);
        std::vector<uint32_t> words2(words.size());
        std::vector<uint8_t> absmax2(absmax.size());
        tiled_to_flat(packed.data(), absmax_t.data(), N, K, k, words2.data(), absmax2.data());
        CHECK(words2 == words);
        CHECK(absmax2 == absmax);
        if (K % 64 == 32) {  // the pad half-tile (h = 1 of the last K-tile) is zero
          const int64_t kt = K / 64;
          for (int64_t n = 0; n < N; ++n) {
            CHECK(q.absmax[size_t((kt * N + n) * 2 + 1)] == 0);
            for (int b = 0; b < k; ++b) CHECK(q.packed[size_t(((kt * N + n) * 2 + 1) * k + b)] == 0u);
          }
        }
      }
}

TEST_CASE("fused experts [E, N, K]: expert-major, one shared scale, equal to per-expert tensors") {
  const int64_t E = 3, N = 8, K = 96;
  const int k = 4;
  auto w = gaussian(E * N * K, 5);
  w[size_t(2 * N * K + 17)] = 3.0f;  // the largest value is in expert 2: it sets s for all
  const Codebook cb = builtin_codebook("nf", k);
  const QuantizedTensor fused = quantize_tensor("experts", {w.data(), DType::F32, E, N, K, true}, cb);
  CHECK(fused.scale_exp == choose_scale_exp(3.0f));
  CHECK(fused.packed.size() == size_t(E * tiled_words(N, K, k)));
  QuantizeOptions shared;
  shared.scale_exp = fused.scale_exp;
  for (int64_t e = 0; e < E; ++e) {
    const QuantizedTensor one =
        quantize_tensor("expert", {&w[size_t(e * N * K)], DType::F32, 1, N, K, false}, cb, shared);
    const auto words = tiled_words(N, K, k), bytes = tiled_absmax_bytes(N, K);
    CHECK(std::vector<uint32_t>(fused.packed.begin() + e * words, fused.packed.begin() + (e + 1) * words) == one.packed);
    CHECK(std::vector<uint8_t>(fused.absmax.begin() + e * bytes, fused.absmax.begin() + (e + 1) * bytes) == one.absmax);
  }
}

TEST_CASE("results do not depend on threads and BF16/F16 sources equal their fp32 values") {
  const int64_t N = 33, K = 160;
  auto w = gaussian(N * K, 9);
  std::vector<uint16_t> bf(w.size()), hf(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    bf[i] = f32_to_bf16(w[i]);
    hf[i] = f32_to_f16(w[i]);
  }
  const Codebook cb = builtin_codebook("nf", 3);
  for (auto [data, dt] : {std::pair<const void*, DType>{bf.data(), DType::BF16}, {hf.data(), DType::F16}}) {
    std::vector<float> widened(w.size());
    to_f32(dt, data, widened.data(), int64_t(w.size()));
    QuantizeOptions one, many;
    one.threads = 1;
    many.threads = 7;
    const QuantizedTensor a = quantize_tensor("w", {data, dt, 1, N, K, false}, cb, one);
    const QuantizedTensor b = quantize_tensor("w", {data, dt, 1, N, K, false}, cb, many);
    const QuantizedTensor c = quantize_tensor("w", {widened.data(), DType::F32, 1, N, K, false}, cb, one);
    CHECK(a.packed == b.packed);
    CHECK(a.absmax == b.absmax);
    CHECK(a.packed == c.packed);
    CHECK(a.absmax == c.absmax);
  }
}

TEST_CASE("dtype conversions: fp16 and bf16 round to nearest even") {
  CHECK(f32_to_bf16(1.0f) == 0x3F80);
  CHECK(f32_to_bf16(1.00390625f) == 0x3F80);   // exactly half an ulp above 1: ties to even
  CHECK(f32_to_bf16(1.01171875f) == 0x3F82);   // 1 + 1.5 ulp: ties to even (up)
  CHECK(f32_to_f16(1.0f) == 0x3C00);
  CHECK(f32_to_f16(65504.0f) == 0x7BFF);
  CHECK(f32_to_f16(65520.0f) == 0x7C00);        // rounds to infinity
  CHECK(f32_to_f16(std::ldexp(1.0f, -24)) == 0x0001);
  CHECK(f32_to_f16(std::ldexp(1.0f, -25)) == 0x0000);  // tie to even (0)
  for (uint32_t h = 0; h < 0x7C00; ++h) {  // every finite positive half round-trips
    REQUIRE(f32_to_f16(f16_to_f32(uint16_t(h))) == h);
    REQUIRE(f32_to_f16(-f16_to_f32(uint16_t(h))) == uint16_t(h | 0x8000));
  }
}
