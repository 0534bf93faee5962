#include "reference/dequantize.h"

#include "kbit/parallel.h"

namespace kbit {

void dequantize_row_ref(const TiledView& w, int64_t e, int64_t n, float* out) {
  const int64_t kbs = k_blocks(w.K);
  for (int64_t kb = 0; kb < kbs; ++kb) {
    const float scale = e4m4_decode(w.absmax_at(e, n, kb));
    const uint32_t* words = w.packed + e * w.expert_words() + tiled_word_offset(n, kb, 0, w.N, w.bits);
    for (int j = 0; j < kBlockSize; ++j) out[kb * kBlockSize + j] = w.codebook[unpack_index(words, j, w.bits)] * scale;
  }
}

void dequantize_ref(const TiledView& w, float* out, int threads) {
  parallel_for(w.E * w.N, threads, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) dequantize_row_ref(w, r / w.N, r % w.N, out + r * w.K);
  });
}

}  // namespace kbit
