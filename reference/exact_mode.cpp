#include "reference/exact_mode.h"

#include <string>

#include "kbit/error.h"
#include "kbit/rng.h"

namespace kbit {

std::vector<float> exact_codebook(int bits) {
  std::vector<float> cb;
  const int half = codebook_size(bits) / 2;
  for (int i = 0; i < 2 * half; ++i) cb.push_back(static_cast<float>(i - half) / static_cast<float>(half));
  return cb;
}

bool exact_mode_fits(int bits, int64_t K) {
  // max |term| / granularity = 4 * 1 * 2 / 2^-(k-1); K terms must stay below 2^24.
  const double ratio = double(kExactMaxActivation) * double(1 << (kExactScaleSpan - 1)) *
                       double(codebook_size(bits) / 2);
  return double(K) * ratio < 0x1p24;
}

QuantizedTensor make_exact_weights(int bits, int64_t E, int64_t N, int64_t K, uint64_t seed) {
  if (!valid_bits(bits) || K % kBlockSize != 0 || N < 1 || E < 1)
    throw Error("make_exact_weights: need k in 2..5, N >= 1, E >= 1 and K % 32 == 0");
  if (!exact_mode_fits(bits, K))
    throw Error("make_exact_weights: K = " + std::to_string(K) + " is too large for exact sums at k = " +
                std::to_string(bits));
  QuantizedTensor q;
  q.name = "exact";
  q.bits = bits;
  q.E = E;
  q.N = N;
  q.K = K;
  q.fused = E > 1;
  q.encoder = Encoder::search;
  q.codebook_name = "exact";
  q.codebook_stored = exact_codebook(bits);
  q.packed.assign(static_cast<size_t>(E * tiled_words(N, K, bits)), 0u);
  q.absmax.assign(static_cast<size_t>(E * tiled_absmax_bytes(N, K)), 0u);
  Rng rng(seed);
  const int64_t kbs = k_blocks(K);
  for (int64_t e = 0; e < E; ++e)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t kb = 0; kb < kbs; ++kb) {
        uint32_t* words = q.packed.data() + e * tiled_words(N, K, bits) + tiled_word_offset(n, kb, 0, N, bits);
        for (int b = 0; b < bits; ++b) words[b] = static_cast<uint32_t>(rng.next());
        const int64_t r = rng.below(16);
        q.absmax[e * tiled_absmax_bytes(N, K) + tiled_absmax_offset(n, kb, N)] =
            r == 0 ? 0x00 : (r % 2 ? 0xB0 : 0xC0);  // 0, 1.0 or 2.0
      }
  return q;
}

std::vector<float> make_exact_activations(int64_t rows, int64_t K, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> a(static_cast<size_t>(rows * K));
  for (auto& v : a) v = static_cast<float>(rng.range(-kExactMaxActivation, kExactMaxActivation));
  return a;
}

}  // namespace kbit
