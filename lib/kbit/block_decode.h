// Bit-plane block decode shared by the CUDA kernels (kernels/common.cuh) and the CPU tests: the
// fast transpose from FORMAT §5's k bit-plane words of one 32-element block to per-element
// codebook byte offsets. Host + device, so the exact function the kernels run is tested on the
// CPU against unpack_index (tests/test_block_decode.cpp).
#pragma once

#include <cstdint>

#include "kbit/format.h"

#if defined(__CUDACC__)
#define KBIT_HD_INLINE __host__ __device__ __forceinline__
#define KBIT_UNROLL _Pragma("unroll")
#else
#define KBIT_HD_INLINE inline
#define KBIT_UNROLL
#endif

namespace kbit {

// A 4 x 4 transpose of F-bit fields across the four planes, inside every group of four fields
// (four delta swaps): field 4a + s of plane b goes to field 4a + b of plane s.
template <int F>
KBIT_HD_INLINE void transpose_fields4(uint32_t& p0, uint32_t& p1, uint32_t& p2, uint32_t& p3) {
  static_assert(F == 1 || F == 2, "bit or 2-bit fields");
  constexpr uint32_t kNear = F == 1 ? 0x55555555u : 0x33333333u, kFar = F == 1 ? 0x33333333u : 0x0F0F0F0Fu;
  uint32_t t;
  t = ((p0 >> F) ^ p1) & kNear; p1 ^= t; p0 ^= t << F;
  t = ((p2 >> F) ^ p3) & kNear; p3 ^= t; p2 ^= t << F;
  t = ((p0 >> 2 * F) ^ p2) & kFar; p2 ^= t; p0 ^= t << 2 * F;
  t = ((p1 >> 2 * F) ^ p3) & kFar; p3 ^= t; p1 ^= t << 2 * F;
}

// A 4x4 bit transpose inside every nibble column of the bit planes (transpose_fields4<1>) turns the
// (up to) four low planes into nibbles: byte c of T[r] = idx(8c + r) | idx(8c + 4 + r) << 4, low
// four index bits (plane 4 of k = 5 is not included).
template <int KB>
KBIT_HD_INLINE void block_nibbles(const uint32_t (&w)[KB], uint32_t (&T)[4]) {
  uint32_t p0 = w[0], p1 = w[1], p2 = 0, p3 = 0;
  if constexpr (KB > 2) p2 = w[2];
  if constexpr (KB > 3) p3 = w[3];
  transpose_fields4<1>(p0, p1, p2, p3);
  T[0] = p0; T[1] = p1; T[2] = p2; T[3] = p3;
}

// block_nibbles, then per element a byte offset: byte c of E[r] = 4 * idx of element 8c + r and
// byte c of O[r] = 4 * idx of element 8c + 4 + r (plane 4 of k = 5 merged in as bit 4): an offset
// into a float codebook, so each weight then costs one byte extract (PRMT), one shared-memory load
// and its FMAs. The instruction count it compiles to is in docs/perf-notes.md (SASS of the gemv loop).
template <int KB>
KBIT_HD_INLINE void block_offsets(const uint32_t (&w)[KB], uint32_t (&E)[4], uint32_t (&O)[4]) {
  uint32_t T[4];
  block_nibbles<KB>(w, T);
  KBIT_UNROLL
  for (int r = 0; r < 4; ++r) {
    E[r] = (T[r] << 2) & 0x3C3C3C3Cu;
    O[r] = (T[r] >> 2) & 0x3C3C3C3Cu;
    if constexpr (KB == 5) {
      const uint32_t u = (w[KB - 1] >> r) & 0x11111111u;
      E[r] |= (u << 6) & 0x40404040u;
      O[r] |= (u << 2) & 0x40404040u;
    }
  }
}

// k = 2 only: one byte offset per *pair* of elements into a 16-entry table of float2 codebook pairs
// (entry lo | hi << 2 = (cb[lo], cb[hi]); 128 bytes, so any access pattern of a warp is free of
// bank conflicts). Byte c of P[r] = 8 * (idx(8c + r) | idx(8c + 4 + r) << 2). From T (indices of two
// bits: lo in bits 0-1 and hi in bits 4-5 of each byte), T * 10 = T << 3 + T << 1 puts lo * 8 in
// bits 3-4 and hi * 32 in bits 5-6 of each byte; the other copies land on bits that are zero in the
// other term (bits 1-2, 7, and bit 0 of the next byte), so the sum has no carries and one mask keeps
// the offset: 2 instructions per 8 weights, and then one PRMT + one 8-byte load per two weights.
KBIT_HD_INLINE void block_pair_offsets2(const uint32_t (&w)[2], uint32_t (&P)[4]) {
  uint32_t T[4];
  block_nibbles<2>(w, T);
  KBIT_UNROLL
  for (int r = 0; r < 4; ++r) P[r] = (T[r] * 10u) & 0x78787878u;
}

// k = 2 only: byte offsets of *adjacent* element pairs (2j, 2j + 1) into a 16-entry table of pair
// entries of kEntryBytes each: 4 (two 16-bit values: tcv) or 8 (float2: gemv), without the nibble
// transpose. The code of the pair at element e (even) is v = b0(e) | b0(e + 1) << 1 | b1(e) << 2 |
// b1(e + 1) << 3 (b0, b1: the element's bits in planes 0 and 1), and byte c of Q[s] =
// kEntryBytes * v of the pair at element 8c + 2s (s, c = 0..3). X = planes 0 and 1 of elements 4n,
// 4n + 1 side by side in nibble n, Y the same for 4n + 2, 4n + 3 (a shift and a bit-select each);
// each of their bytes holds two codes (nibbles 2c and 2c + 1), so a shift and a mask per word give
// the offsets: 12 instructions per 32 weights. Activation word j of the block (elements 2j, 2j + 1)
// is the other operand of the pair at element 2j, as it is.
template <int kEntryBytes = 4>
KBIT_HD_INLINE void block_adjacent_pairs2(const uint32_t (&w)[2], uint32_t (&Q)[4]) {
  static_assert(kEntryBytes == 4 || kEntryBytes == 8, "16-bit or float pairs");
  constexpr int kLo = kEntryBytes == 4 ? 2 : 3;  // low nibble to bits 2-5 (3-6), high nibble by 4 - kLo down
  constexpr uint32_t kMask = 0x0F0F0F0Fu * kEntryBytes;
  const uint32_t X = (w[0] & 0x33333333u) | ((w[1] << 2) & 0xCCCCCCCCu);
  const uint32_t Y = ((w[0] >> 2) & 0x33333333u) | (w[1] & 0xCCCCCCCCu);
  Q[0] = (X << kLo) & kMask;        // elements 8c, 8c + 1
  Q[1] = (Y << kLo) & kMask;        // 8c + 2, 8c + 3
  Q[2] = (X >> (4 - kLo)) & kMask;  // 8c + 4, 8c + 5
  Q[3] = (Y >> (4 - kLo)) & kMask;  // 8c + 6, 8c + 7
}

// k = 3, 4 (tcv's pair table): codes of *adjacent* element pairs (2j, 2j + 1), as block_nibbles
// codes the pairs (8c + r, 8c + 4 + r), in the same four delta swaps -- of 2-bit fields
// (transpose_fields4<2>: planes x fields within each byte) instead of single bits. Byte c of Q[s] codes the
// pair at element 8c + 2s: bit 2b is bit b of element 8c + 2s's index, bit 2b + 1 bit b of element
// 8c + 2s + 1's (adjacent_nibble_lo, _hi read them back). At k = 3 bits 6 and 7 are clear: codes
// < 64. Activation word j of the block (elements 2j, 2j + 1) is the other operand of the pair at
// element 2j as it is loaded, so tcv's mma takes no PRMT joins of activation halves.
template <int KB>
KBIT_HD_INLINE void block_adjacent_nibbles(const uint32_t (&w)[KB], uint32_t (&Q)[4]) {
  static_assert(KB == 3 || KB == 4, "k = 3, 4 (k = 2: block_adjacent_pairs2)");
  uint32_t p0 = w[0], p1 = w[1], p2 = w[2], p3 = 0;
  if constexpr (KB > 3) p3 = w[3];
  transpose_fields4<2>(p0, p1, p2, p3);
  Q[0] = p0; Q[1] = p1; Q[2] = p2; Q[3] = p3;
}
// The indices of elements 2j and 2j + 1 in code v of block_adjacent_nibbles: its even and odd bits.
constexpr KBIT_HD int adjacent_nibble_lo(int v) {
  return (v & 1) | ((v >> 1) & 2) | ((v >> 2) & 4) | ((v >> 3) & 8);
}
constexpr KBIT_HD int adjacent_nibble_hi(int v) { return adjacent_nibble_lo(v >> 1); }

// The codebook indices (of elements e, e + 1) that code v of block_adjacent_pairs2 stands for.
constexpr KBIT_HD int adjacent_pair_lo(int v) { return (v & 1) | ((v >> 2) & 1) << 1; }
constexpr KBIT_HD int adjacent_pair_hi(int v) { return ((v >> 1) & 1) | ((v >> 3) & 1) << 1; }

// The PRMT byte permute (CUDA __byte_perm): byte i of the result is byte (s >> 4i) & 7 of the
// 8-byte value b:a. Every selector used here has bit 3 of each nibble clear (PRMT's sign-replicate
// mode is never used). The host version lets the CPU tests run the decode the kernels run.
KBIT_HD_INLINE uint32_t byte_perm(uint32_t a, uint32_t b, uint32_t s) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(a, b, s);
#else
  const uint64_t x = static_cast<uint64_t>(b) << 32 | a;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    const uint32_t n = (s >> (4 * i)) & 7u;
    r |= (static_cast<uint32_t>(x >> (8 * n)) & 0xFFu) << (8 * i);
  }
  return r;
#endif
}

// k = 2, 3: byte tables of a 16-bit codebook (the block's scaled codebook, already rounded to the
// activation type) for register lookups. P[p] holds entries 2p (low half) and 2p + 1 (high half);
// out, L holds the low bytes of entries 0..7 (L[0] bytes = entries 0..3, L[1] = 4..7) and H their
// high bytes, so byte_perm(L[0], L[1], idx) is the low byte of entry idx (idx <= 7). At k = 2,
// L[1] and H[1] repeat L[0] and H[0] (never selected).
template <int KB>
KBIT_HD_INLINE void byte_tables(const uint32_t (&P)[1 << (KB - 1)], uint32_t (&L)[2], uint32_t (&H)[2]) {
  static_assert(KB == 2 || KB == 3, "byte tables hold at most 8 entries");
  L[0] = byte_perm(P[0], P[1], 0x6420u);
  H[0] = byte_perm(P[0], P[1], 0x7531u);
  if constexpr (KB == 3) {
    L[1] = byte_perm(P[2], P[3], 0x6420u);
    H[1] = byte_perm(P[2], P[3], 0x7531u);
  } else {
    L[1] = L[0];
    H[1] = H[0];
  }
}

// k = 2, 3: the block's 32 weights as 16-bit pairs from the byte tables, two weights for ~1.1
// instructions. block_nibbles leaves element 4n + r in nibble n of T[r] (an index <= 7, so a valid
// PRMT selector nibble): one PRMT on L and one on H turn a 16-bit half of T[r] into the low and
// the high bytes of four entries, two more interleave them. Out: W[r][c] holds element 8c + r in
// its low half and element 8c + 4 + r in its high half (r, c = 0..3).
template <int KB>
KBIT_HD_INLINE void block_table_pairs(const uint32_t (&w)[KB], const uint32_t (&L)[2], const uint32_t (&H)[2],
                                      uint32_t (&W)[4][4]) {
  static_assert(KB == 2 || KB == 3, "byte tables hold at most 8 entries");
  uint32_t T[4];
  block_nibbles<KB>(w, T);
  KBIT_UNROLL
  for (int r = 0; r < 4; ++r) {
    KBIT_UNROLL
    for (int h = 0; h < 2; ++h) {  // elements 16h + r + 4n, n = 0..3
      const uint32_t sel = h ? T[r] >> 16 : T[r];
      const uint32_t lo = byte_perm(L[0], L[1], sel), hi = byte_perm(H[0], H[1], sel);
      W[r][2 * h] = byte_perm(lo, hi, 0x5140u);      // elements 16h + r, 16h + 4 + r
      W[r][2 * h + 1] = byte_perm(lo, hi, 0x7362u);  // elements 16h + 8 + r, 16h + 12 + r
    }
  }
}

// Byte c of an E or O word from block_offsets (what the kernels' PRMT extracts).
constexpr KBIT_HD int offset_byte(uint32_t offsets, int c) { return static_cast<int>((offsets >> (8 * c)) & 0xFFu); }

}  // namespace kbit
