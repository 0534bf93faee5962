// Test inputs generated directly as tiled bytes (the kernels only see bytes, so no encoder run is
// needed and huge shapes take well under a second on many cores):
//   realistic  random index bits; absmax codes uniform in 0x70..0xA0 (2^-4 .. 2^-1), 1 block in 64
//              with absmax 0 and 1 in 256 with an E4M4 subnormal code 0x01..0x0F; the codebook is
//              "nf" x 2^s (s in -3..1) or a random ascending one (sorted N(0, 1) draws x 2^s), by seed.
//   exact      reference/exact_mode.h (make_exact_weights per chunk of rows, chunks seeded by
//              position, so the bytes do not depend on the thread count).
// Padding blocks past K/32 (K % 64 == 32) stay zero words with absmax 0, as FORMAT §5 requires.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kbit/tiled.h"
#include "tolerance.h"

namespace kbit::verify {

struct HostWeights {
  int bits = 0;
  int64_t E = 1, N = 0, K = 0;
  std::string codebook_kind;
  std::vector<float> codebook;      // cb_stored
  std::vector<float> codebook_abs;  // |cb_stored|: the same bytes then dequantize to |W'|
  std::vector<uint32_t> packed;
  std::vector<uint8_t> absmax;

  TiledView view() const {
    TiledView v{packed.data(), absmax.data(), codebook.data(), bits, E, N, K};
    v.half_cb = codebook_half_normal(codebook.data(), static_cast<int>(codebook.size()));
    return v;
  }
  TiledView abs_view() const {
    TiledView v = view();
    v.codebook = codebook_abs.data();
    return v;
  }
};

HostWeights make_random_weights(int bits, int64_t E, int64_t N, int64_t K, uint64_t seed, int threads = 0);
HostWeights make_exact_weights_parallel(int bits, int64_t E, int64_t N, int64_t K, uint64_t seed, int threads = 0);

// rows x K N(0, 1) draws rounded to the dtype (as floats), row r from its own seeded stream.
std::vector<float> make_activations(int64_t rows, int64_t K, Precision p, uint64_t seed, int threads = 0);

}  // namespace kbit::verify
