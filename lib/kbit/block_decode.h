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

// A 4x4 bit transpose inside every nibble column of the bit planes (four delta swaps) turns k <= 4
// planes into nibbles; plane 4 (k = 5) is merged in as bit 4. Outputs byte c of E[r] = 4 * idx of
// element 8c + r and byte c of O[r] = 4 * idx of element 8c + 4 + r: a byte offset into a float
// codebook, so each weight then costs one byte extract (PRMT), one shared-memory load and its FMAs.
// The instruction count it compiles to is in docs/perf-notes.md (SASS of the gemv loop).
template <int KB>
KBIT_HD_INLINE void block_offsets(const uint32_t (&w)[KB], uint32_t (&E)[4], uint32_t (&O)[4]) {
  uint32_t p0 = w[0], p1 = w[1], p2 = 0, p3 = 0;
  if constexpr (KB > 2) p2 = w[2];
  if constexpr (KB > 3) p3 = w[3];
  uint32_t t;
  t = ((p0 >> 1) ^ p1) & 0x55555555u; p1 ^= t; p0 ^= t << 1;
  t = ((p2 >> 1) ^ p3) & 0x55555555u; p3 ^= t; p2 ^= t << 1;
  t = ((p0 >> 2) ^ p2) & 0x33333333u; p2 ^= t; p0 ^= t << 2;
  t = ((p1 >> 2) ^ p3) & 0x33333333u; p3 ^= t; p1 ^= t << 2;
  const uint32_t T[4] = {p0, p1, p2, p3};
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

// Byte c of an E or O word from block_offsets (what the kernels' PRMT extracts).
constexpr KBIT_HD int offset_byte(uint32_t offsets, int c) { return static_cast<int>((offsets >> (8 * c)) & 0xFFu); }

}  // namespace kbit
