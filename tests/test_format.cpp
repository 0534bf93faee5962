// format.h: E4M4 decode over all 256 codes, the tiled index map against upstream's TILE_N = 128
// formula, and bijectivity of the map for odd N and K % 64 == 32.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kbit/format.h"

using namespace kbit;

TEST_CASE("e4m4: all 256 codes decode per FORMAT §3 and strictly increase") {
  for (int c = 0; c < 256; ++c) {
    const int e = c >> 4, m = c & 15;
    double want = 0.0;  // the spec's two formulas, evaluated independently in float64
    if (c == 0) want = 0.0;
    else if (e == 0) want = m * std::ldexp(1.0, -14);
    else want = std::ldexp(1.0, e - 11) * (1.0 + m / 16.0);
    CAPTURE(c);
    CHECK(double(e4m4_decode(uint8_t(c))) == want);
    if (c > 0) CHECK(e4m4_decode(uint8_t(c)) > e4m4_decode(uint8_t(c - 1)));
  }
  CHECK(e4m4_decode(0xFF) == 31.0f);
  CHECK(e4m4_decode(0x10) == std::ldexp(1.0f, -10));
  CHECK(e4m4_decode(0x01) == std::ldexp(1.0f, -14));
}

TEST_CASE("e4m4: e4m4_decode_bits (the kernels' two-instruction decode) equals e4m4_decode for all 256 codes") {
  for (int c = 0; c < 256; ++c) CHECK(e4m4_decode_bits(uint8_t(c)) == e4m4_decode(uint8_t(c)));
  CHECK(e4m4_decode_bits(0x01) == std::ldexp(1.0f, -14));  // through a denormal float
  CHECK(e4m4_decode_bits(0xFF) == 31.0f);
}

TEST_CASE("tiled map: equals upstream's TILE_N=128 repack for N % 128 == 0") {
  for (int k = 2; k <= 5; ++k)
    for (int64_t N : {128, 256, 384})
      for (int64_t kb = 0; kb < 6; ++kb)
        for (int64_t n = 0; n < N; n += 7)
          for (int b = 0; b < k; ++b) {
            const int64_t kt = kb / 2, h = kb % 2;
            const int64_t tile = kt * (N / 128) + n / 128;
            const int64_t upstream_word = tile * (128 * 2 * k) + (n % 128) * 2 * k + h * k + b;
            const int64_t upstream_absmax = tile * 256 + (n % 128) * 2 + h;
            REQUIRE(tiled_word_offset(n, kb, b, N, k) == upstream_word);
            REQUIRE(tiled_absmax_offset(n, kb, N) == upstream_absmax);
          }
}

TEST_CASE("tiled map: a bijection onto its storage for odd N and K % 64 == 32") {
  for (int k = 2; k <= 5; ++k)
    for (int64_t N : {1, 8, 576, 2049})
      for (int64_t K : {32, 64, 96, 2080}) {
        CAPTURE(k); CAPTURE(N); CAPTURE(K);
        std::vector<int> hits_w(size_t(tiled_words(N, K, k)), 0);
        std::vector<int> hits_a(size_t(tiled_absmax_bytes(N, K)), 0);
        for (int64_t n = 0; n < N; ++n)
          for (int64_t kb = 0; kb < k_blocks(K); ++kb) {
            for (int b = 0; b < k; ++b) ++hits_w.at(size_t(tiled_word_offset(n, kb, b, N, k)));
            ++hits_a.at(size_t(tiled_absmax_offset(n, kb, N)));
          }
        // Every word is hit once, except the pad half-tile (h = 1) of the last K-tile when
        // K % 64 == 32: exactly N * k words and N absmax bytes stay untouched (they hold zero).
        int64_t once = 0, never = 0, more = 0;
        for (int h : hits_w) (h == 1 ? once : h == 0 ? never : more)++;
        CHECK(more == 0);
        CHECK(never == (K % 64 == 32 ? N * k : 0));
        CHECK(once == N * k_blocks(K) * k);
        int64_t a_never = 0;
        for (int h : hits_a) { CHECK(h <= 1); a_never += h == 0; }
        CHECK(a_never == (K % 64 == 32 ? N : 0));
      }
}

TEST_CASE("sizes: k_tiles, bytes per weight") {
  CHECK(k_tiles(32) == 1);
  CHECK(k_tiles(64) == 1);
  CHECK(k_tiles(96) == 2);
  CHECK(tiled_words(8, 96, 3) == 2 * 8 * 2 * 3);
  CHECK(bytes_per_weight(4) == doctest::Approx(0.53125));
  CHECK(bytes_per_weight(2) == doctest::Approx(0.28125));
}
