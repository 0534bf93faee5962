// kbit format v1, defined once (../shared/FORMAT.md is the contract).
//
// Everything every component must agree on lives here as small constexpr functions that compile
// for host and device: block size, the E4M4 absmax decode, the built-in codebook bit patterns and
// the tiled index map. Packing (lib/), the fp32 CPU reference (reference/), every CUDA kernel
// (kernels/) and the layout checker call these functions; nothing restates the formulas.
// Checked by tests/test_format.cpp (CPU) and tests/test_format_gpu.cu (same functions on the GPU).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define KBIT_HD __host__ __device__
#else
#define KBIT_HD
#endif

namespace kbit {

inline constexpr int kFormatVersion = 1;
inline constexpr int kBlockSize = 32;     // elements per quantization block (one row, 32 consecutive k)
inline constexpr int kTileK = 64;         // elements per K-tile of the tiled layout
inline constexpr int kBlocksPerTile = 2;  // = kTileK / kBlockSize, the `h` index of FORMAT §5
inline constexpr int kMinBits = 2;
inline constexpr int kMaxBits = 5;
static_assert(kTileK == kBlocksPerTile * kBlockSize);
static_assert(kBlockSize == 32, "bit planes are one uint32 word per block and bit");

constexpr KBIT_HD bool valid_bits(int k) { return k >= kMinBits && k <= kMaxBits; }
constexpr KBIT_HD int codebook_size(int k) { return 1 << k; }

// ---------------------------------------------------------------------------------------------
// E4M4 absmax byte: eeee mmmm; 0 -> 0; e = 0 -> m * 2^-14; e >= 1 -> 2^(e-11) * (1 + m/16).
// Both branches are one integer: e = 0 gives m, e >= 1 gives (16 + m) << (e - 1), and the value is
// that integer times 2^-14. The integer is below 2^19, so the int -> float conversion and the
// power-of-two multiply are exact; kernels pay one shift, one I2F and one FMUL.
constexpr KBIT_HD float e4m4_decode(uint8_t code) {
  const uint32_t e = code >> 4;
  const uint32_t m = code & 15u;
  const uint32_t units = e == 0 ? m : (16u + m) << (e - 1);
  return static_cast<float>(units) * 0x1p-14f;
}
static_assert(e4m4_decode(0x00) == 0.0f);
static_assert(e4m4_decode(0x01) == 0x1p-14f);
static_assert(e4m4_decode(0x10) == 0x1p-10f);
static_assert(e4m4_decode(0xFF) == 31.0f);
static_assert(e4m4_decode(0xB0) == 1.0f);  // e = 11, m = 0
inline constexpr float kE4M4Max = 31.0f;

// The same value in two instructions, for the kernels' step loops: the byte shifted into bits 19..26
// of a float is eeee in the exponent field and mmmm in the top of the mantissa, i.e. 2^(e-127) *
// (1 + m/16) for e >= 1 and the denormal m * 2^-130 for e = 0; times 2^116 that is exactly
// e4m4_decode (all 256 codes checked on the CPU in tests/test_format.cpp and on the GPU in
// tests/test_format_gpu.cu). Needs denormals kept (no flush-to-zero: no -use_fast_math / -ftz=true).
KBIT_HD inline float e4m4_decode_bits(uint8_t code) {
  const uint32_t u = static_cast<uint32_t>(code) << 19;
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u) * 0x1p116f;
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f * 0x1p116f;
#endif
}

// ---------------------------------------------------------------------------------------------
// Tiled layout (FORMAT §5). Logical shapes: packed [E][k_tiles][N][2][k] uint32 words,
// absmax [E][k_tiles][N][2] bytes. Blocks past K/32 are zero words with absmax 0.
constexpr KBIT_HD int64_t k_tiles(int64_t K) { return (K + kTileK - 1) / kTileK; }
constexpr KBIT_HD int64_t k_blocks(int64_t K) { return K / kBlockSize; }

// Word b of block (n, kb) of one expert's matrix: kt = kb / 2, h = kb % 2.
constexpr KBIT_HD int64_t tiled_word_offset(int64_t n, int64_t kb, int b, int64_t N, int k) {
  const int64_t kt = kb / kBlocksPerTile;
  const int64_t h = kb % kBlocksPerTile;
  return ((kt * N + n) * kBlocksPerTile + h) * k + b;
}
constexpr KBIT_HD int64_t tiled_absmax_offset(int64_t n, int64_t kb, int64_t N) {
  const int64_t kt = kb / kBlocksPerTile;
  const int64_t h = kb % kBlocksPerTile;
  return (kt * N + n) * kBlocksPerTile + h;
}
// Per-expert sizes; expert e's words start at e * tiled_words(N, K, k), its absmax at
// e * tiled_absmax_bytes(N, K).
constexpr KBIT_HD int64_t tiled_words(int64_t N, int64_t K, int k) {
  return k_tiles(K) * N * kBlocksPerTile * k;
}
constexpr KBIT_HD int64_t tiled_absmax_bytes(int64_t N, int64_t K) {
  return k_tiles(K) * N * kBlocksPerTile;
}
// The formula reproduces upstream's TILE_N = 128 repack for N % 128 == 0 (notes/upstream-kbit §5):
// tile kt*(N/128) + n/128, inner offset (n%128)*2k + h*k + b.
static_assert(tiled_word_offset(130, 5, 3, 256, 4) ==
              (2 * (256 / 128) + 130 / 128) * (128 * 2 * 4) + (130 % 128) * 2 * 4 + 1 * 4 + 3);
static_assert(tiled_absmax_offset(130, 5, 256) == (2 * 2 + 1) * 256 + 2 * 2 + 1);

// Bit planes (FORMAT §5): bit j of word b is bit b of idx_j.
constexpr KBIT_HD int unpack_index(const uint32_t* words, int j, int k) {
  int idx = 0;
  for (int b = 0; b < k; ++b) idx |= static_cast<int>((words[b] >> j) & 1u) << b;
  return idx;
}

// ---------------------------------------------------------------------------------------------
// Built-in "nf" codebooks: normal quantiles at bin midpoints, Phi^-1((i + 0.5) / 2^k), divided by
// the largest magnitude. The exact fp32 bit patterns of FORMAT §2; never recomputed at run time.
inline constexpr uint32_t kNfBits2[4] = {0xbf800000, 0xbe8dd219, 0x3e8dd219, 0x3f800000};
inline constexpr uint32_t kNfBits3[8] = {0xbf800000, 0xbf1409f5, 0xbea32005, 0xbdd2012a,
                                         0x3dd2012a, 0x3ea32005, 0x3f1409f5, 0x3f800000};
inline constexpr uint32_t kNfBits4[16] = {
    0xbf800000, 0xbf35233a, 0xbf0ace37, 0xbed56948, 0xbe9f2ee8, 0xbe5d2107, 0xbe0265ad, 0xbd2c6c36,
    0x3d2c6c36, 0x3e0265ad, 0x3e5d2107, 0x3e9f2ee8, 0x3ed56948, 0x3f0ace37, 0x3f35233a, 0x3f800000};
inline constexpr uint32_t kNfBits5[32] = {
    0xbf800000, 0xbf4731dc, 0xbf288359, 0xbf122cf2, 0xbf001198, 0xbee10f81, 0xbec56bf3, 0xbeac39a3,
    0xbe94d4a9, 0xbe7d9848, 0xbe539bda, 0xbe2b36ba, 0xbe04052d, 0xbdbb691c, 0xbd5ff631, 0xbc950060,
    0x3c950060, 0x3d5ff631, 0x3dbb691c, 0x3e04052d, 0x3e2b36ba, 0x3e539bda, 0x3e7d9848, 0x3e94d4a9,
    0x3eac39a3, 0x3ec56bf3, 0x3ee10f81, 0x3f001198, 0x3f122cf2, 0x3f288359, 0x3f4731dc, 0x3f800000};

constexpr const uint32_t* nf_codebook_bits(int k) {
  return k == 2 ? kNfBits2 : k == 3 ? kNfBits3 : k == 4 ? kNfBits4 : k == 5 ? kNfBits5 : nullptr;
}

// Bytes per weight of the stored format: k bits of index plus one absmax byte per 32 weights.
constexpr double bytes_per_weight(int k) { return k / 8.0 + 1.0 / kBlockSize; }

}  // namespace kbit
