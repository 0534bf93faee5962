// Views of quantized weights in the tiled layout (FORMAT §5), as the kernels and the CPU
// reference take them: plain pointers plus shape, no ownership. Host or device pointers alike.
#pragma once

#include <cstdint>

#include "kbit/format.h"

namespace kbit {

struct TiledView {
  const uint32_t* packed = nullptr;    // [E][k_tiles][N][2][k]
  const uint8_t* absmax = nullptr;     // [E][k_tiles][N][2]
  const float* codebook = nullptr;     // cb_stored, 2^k values
  int bits = 0;                        // k
  int64_t E = 1, N = 0, K = 0;

  KBIT_HD int64_t expert_words() const { return tiled_words(N, K, bits); }
  KBIT_HD int64_t expert_absmax() const { return tiled_absmax_bytes(N, K); }
  // Index and absmax of weight (n, kk) of expert e; the one place the map is applied on the host.
  KBIT_HD int index_at(int64_t e, int64_t n, int64_t kk) const {
    const uint32_t* words = packed + e * expert_words() + tiled_word_offset(n, kk / kBlockSize, 0, N, bits);
    return unpack_index(words, static_cast<int>(kk % kBlockSize), bits);
  }
  KBIT_HD uint8_t absmax_at(int64_t e, int64_t n, int64_t kb) const {
    return absmax[e * expert_absmax() + tiled_absmax_offset(n, kb, N)];
  }
};

}  // namespace kbit
