#include "weights.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "catalogue.h"
#include "kbit/error.h"
#include "kbit/format.h"
#include "kbit/parallel.h"
#include "kbit/rng.h"
#include "reference/exact_mode.h"

namespace kbit::verify {
namespace {

uint64_t mix(uint64_t seed, uint64_t i) {
  Rng r(seed ^ (i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull));
  return r.next();
}

void check_args(int bits, int64_t E, int64_t N, int64_t K) {
  if (!valid_bits(bits) || E < 1 || N < 1 || K < kBlockSize || K % kBlockSize != 0)
    throw Error("weights: need k in 2..5, E >= 1, N >= 1, K >= 32 and K % 32 == 0");
}

}  // namespace

HostWeights make_random_weights(int bits, int64_t E, int64_t N, int64_t K, uint64_t seed, int threads) {
  check_args(bits, E, N, K);
  HostWeights w;
  w.bits = bits, w.E = E, w.N = N, w.K = K;
  Rng rng(seed);
  const int s = static_cast<int>(rng.range(-3, 1));
  const float scale = std::ldexp(1.0f, s);
  if (rng.uniform() < 0.5) {
    w.codebook_kind = "nf*2^" + std::to_string(s);
    const uint32_t* b = nf_codebook_bits(bits);
    for (int i = 0; i < codebook_size(bits); ++i) {
      float v;
      std::memcpy(&v, &b[i], 4);
      w.codebook.push_back(v * scale);
    }
  } else {
    w.codebook_kind = "random*2^" + std::to_string(s);
    for (int i = 0; i < codebook_size(bits); ++i) w.codebook.push_back(static_cast<float>(rng.normal()) * scale);
    std::sort(w.codebook.begin(), w.codebook.end());
  }
  for (float v : w.codebook) w.codebook_abs.push_back(std::fabs(v));
  w.packed.assign(size_t(E * tiled_words(N, K, bits)), 0u);
  w.absmax.assign(size_t(E * tiled_absmax_bytes(N, K)), 0u);
  const int64_t kbs = k_blocks(K);
  parallel_for(E * N, threads, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t e = r / N, n = r % N;
      Rng g(mix(seed, uint64_t(r)));
      uint32_t* base = w.packed.data() + e * tiled_words(N, K, bits);
      uint8_t* abase = w.absmax.data() + e * tiled_absmax_bytes(N, K);
      for (int64_t kb = 0; kb < kbs; ++kb) {
        uint32_t* words = base + tiled_word_offset(n, kb, 0, N, bits);
        for (int b = 0; b < bits; ++b) words[b] = static_cast<uint32_t>(g.next());
        const uint64_t x = g.next();
        const uint64_t sel = x & 255u;
        uint8_t code;
        if (sel < 4) code = 0;                                          // 1 in 64: absmax 0
        else if (sel == 4) code = static_cast<uint8_t>(1 + (x >> 8) % 15);  // 1 in 256: subnormal E4M4
        else code = static_cast<uint8_t>(0x70 + (x >> 8) % 0x31);         // 0x70..0xA0
        abase[tiled_absmax_offset(n, kb, N)] = code;
      }
    }
  });
  return w;
}

HostWeights make_exact_weights_parallel(int bits, int64_t E, int64_t N, int64_t K, uint64_t seed, int threads) {
  check_args(bits, E, N, K);
  HostWeights w;
  w.bits = bits, w.E = E, w.N = N, w.K = K;
  w.codebook_kind = "exact";
  w.codebook = exact_codebook(bits);
  for (float v : w.codebook) w.codebook_abs.push_back(std::fabs(v));
  w.packed.assign(size_t(E * tiled_words(N, K, bits)), 0u);
  w.absmax.assign(size_t(E * tiled_absmax_bytes(N, K)), 0u);
  constexpr int64_t kChunk = 1024;  // rows per make_exact_weights call
  const int64_t chunks_per_expert = (N + kChunk - 1) / kChunk;
  const int64_t kt = k_tiles(K);
  parallel_for(E * chunks_per_expert, threads, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t e = c / chunks_per_expert, n0 = (c % chunks_per_expert) * kChunk;
      const int64_t rows = std::min(kChunk, N - n0);
      const QuantizedTensor q = make_exact_weights(bits, 1, rows, K, mix(seed, uint64_t(c)));
      // chunk layout [kt][rows][2][k] -> [kt][n0 .. n0 + rows) of expert e
      for (int64_t t = 0; t < kt; ++t) {
        std::memcpy(w.packed.data() + e * tiled_words(N, K, bits) + (t * N + n0) * kBlocksPerTile * bits,
                    q.packed.data() + t * rows * kBlocksPerTile * bits, size_t(rows * kBlocksPerTile * bits) * 4);
        std::memcpy(w.absmax.data() + e * tiled_absmax_bytes(N, K) + (t * N + n0) * kBlocksPerTile,
                    q.absmax.data() + t * rows * kBlocksPerTile, size_t(rows * kBlocksPerTile));
      }
    }
  });
  return w;
}

std::vector<float> make_activations(int64_t rows, int64_t K, Precision p, uint64_t seed, int threads) {
  std::vector<float> a(size_t(rows * K));
  parallel_for(rows, threads, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      Rng g(mix(seed, uint64_t(r)));
      for (int64_t k = 0; k < K; ++k) a[size_t(r * K + k)] = round_to(p, static_cast<float>(g.normal()));
    }
  });
  return a;
}

}  // namespace kbit::verify
