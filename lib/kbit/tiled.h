// Views of quantized weights in the tiled layout (FORMAT §5), as the kernels and the CPU
// reference take them: plain pointers plus shape, no ownership. Host or device pointers alike.
#pragma once

#include <cstdint>

#include "kbit/format.h"

namespace kbit {

// True when each of the n values is 0 or a normal fp16 number (2^-14 <= |x| <= 65504). Then
// rounding it to fp16 or bf16 has a relative error of at most half an ulp and no absolute part,
// and so does multiplying it by an E4M4 absmax (exact in both types) and rounding again.
inline bool codebook_half_normal(const float* cb, int n) {
  for (int i = 0; i < n; ++i) {
    const float a = cb[i] < 0 ? -cb[i] : cb[i];
    if (!(a == 0.0f || (a >= 0x1p-14f && a <= 65504.0f))) return false;
  }
  return true;
}

struct TiledView {
  const uint32_t* packed = nullptr;    // [E][k_tiles][N][2][k]
  const uint8_t* absmax = nullptr;     // [E][k_tiles][N][2]
  const float* codebook = nullptr;     // cb_stored, 2^k values
  int bits = 0;                        // k
  int64_t E = 1, N = 0, K = 0;
  // Every cb_stored value is 0 or a normal fp16 number (codebook_half_normal): set by the host
  // views that have the codebook; false (the default) keeps decodes that round cb to the
  // activation type before the scale multiply (tcw's pair table at k = 4) out of use.
  bool half_cb = false;

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
