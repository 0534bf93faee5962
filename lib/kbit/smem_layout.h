// Shared-memory layouts of the kbit tensor-core kernels, defined once. Kernels include this header
// and call these functions; kbit-fragcheck (apps/kbit-fragcheck, tests/test_fragcheck.cpp) proves
// every instantiation bijective, in bounds, bank-conflict-free where declared, and that ldmatrix
// from it hands each lane exactly the mma.sync m16n8k16 fragment (lib/kbit/fragment.h) it needs.
//
// API (all constexpr, host + device; offsets are in elements of the tile's own type: halves for
// the A / dequantized-B tiles, uint32 words for the bit-plane tile, bytes for the absmax tile).
// A tile base must be 16-byte aligned (bank behaviour is invariant under a uniform shift; the
// checker assumes nothing more).
//
//  (a) Activation tile A [TM][64] halves, TM in {16, 32, 64} (`valid_tm`): row m = 128 bytes = eight
//      16-byte chunks; logical chunk c of row m is stored at chunk c ^ (m & 7) ("XOR swizzle").
//        a_tile_halves(TM), a_tile_bytes(TM) -> TM * 64 halves (no padding), twice that in bytes
//        a_tile_offset(m, kk)              -> half offset of A[m][kk], kk in 0..63
//        a_cp_async_chunk_offset(c)        -> half offset where 16-byte chunk c (= m*8 + kk/8 of the
//                                             row-major global tile) goes; thread i copies chunk i
//        a_ldmatrix_x4_offset(lane, m0, k0)-> half offset of the row lane supplies to
//                                             ldmatrix.x4 (no .trans) of the m16 x k16 fragment at
//                                             (m0, k0), m0 % 16 == 0, k0 % 16 == 0; registers come
//                                             back as mma A regs a0..a3 (frag::mma_a).
//  (b) Dequantized B tile W'[TN][64] halves (n rows, k contiguous, = mma's "col" B operand),
//      TN in {64, 128} (`valid_tn`); the same swizzled chunk layout as A.
//        b_tile_halves(TN), b_tile_bytes(TN) -> TN * 64 halves, twice that in bytes
//        b_tile_offset(n, kk)              -> half offset of W'[n][kk]
//        b_ldmatrix_x2_offset(lane, n0, k0)-> ldmatrix.x2 (no .trans) row address: regs = mma B
//                                             regs b0, b1 of the k16 x n8 fragment at (k0, n0)
//        b_ldmatrix_x4_offset(lane, n0, k0)-> ldmatrix.x4: regs 0,1 = b0,b1 of n-block n0,
//                                             regs 2,3 = b0,b1 of n-block n0 + 8 (n0 % 16 == 0)
//        deq_thread_block(t)               -> the block (n = t/2, h = t%2) thread t dequantizes
//                                             in the dequant-during-fetch scheme; it stores its 32
//                                             halves as 4 x 16-byte st.shared.v4 at
//                                             b_tile_offset(n, 32h + 8j), j = 0..3 (conflict-free)
//  (c) Raw bit-plane tile: one k-tile (blocks h = 0, 1) of TN rows, words [TN][2][k] in the
//      FORMAT §5 order, i.e. exactly the contiguous global run starting at
//      tiled_word_offset(n0, 2*kt, 0, N, k), copied with 16-byte cp.async (chunk c = global words
//      4c..4c+3; needs (kt*N + n0)*k even for 16-byte alignment of the source).
//      Plain: word (n, h, b) at n*2k + h*k + b. Row stride 2k = 8 words for k = 4 puts rows n and
//      n+4 in the same bank: the MMA-loop fragment read (8 rows per instruction) is 2-way
//      conflicted (seed 000 §2.6). Skewed: for k = 4, 16 bytes of padding after every 128 bytes
//      (4 rows), which moves rows 4..7 by four banks; for k = 2, 3, 5 skewed == plain (already
//      conflict-free). Padding lies on 16-byte boundaries, so cp.async chunks stay whole.
//        bp_pad_words(k, skewed)           -> words of padding after every 32 words (4 or 0)
//        bp_tile_words(TN, k, skewed)      -> words of storage including padding (bytes:
//                                             bp_tile_bytes; a multiple of 16)
//        bp_word_offset(n, h, b, k, skewed)-> word offset of plane b of block (n, h)
//        bp_storage_word(w, k, skewed)     -> storage word of tile word w (global order,
//                                             w < 2 TN k; the 4-byte cp.async fallback uses it)
//        bp_cp_async_chunks(TN, k)         -> number of 16-byte chunks of the tile (TN * k / 2)
//        bp_cp_async_dst_word(c, k, skewed)-> word offset where global chunk c goes
//        bfrag_bp_source(lane, reg, half, n0, k0) -> {n, h, j}: the block and bit position whose
//                                             index bits feed B element (lane, reg, half) of the
//                                             k16 x n8 fragment at (k0, n0) (frag::mma_b): the
//                                             lane reads words (n, h, b) for b < k and takes bit j
//      Absmax tile [TN][2] bytes: bp_absmax_offset(n, h) -> n*2 + h; bp_absmax_bytes(TN) -> 2 TN.
//
// Bank-conflict ways per access pattern (1 = conflict-free; ways = wavefronts per phase), declared
// here and required to match what kbit-fragcheck measures, exactly:
//        a_*/b_* patterns (cp.async fill, ldmatrix, dequant store)        1
//        bp_frag_read_ways(k, skewed)  MMA-loop ld.shared.b32, lane t reads (n0 + t/4, h, b)
//        bp_block_read_ways(k, bytes)  dequant-in-fetch: thread t reads block (t/2, t%2) with
//                                      `bytes`-wide loads (4, 8 = v2, 16 = v4)
//        bp cp.async fill (16-byte chunks, or the 4-byte fallback), absmax
//        reads and fills                                                  1
// In the dequant-during-fetch kernel (kernels/mma.cu) the planes are read per block with the
// widest vector load, conflict-free in both variants; the seed-000 2-way pattern only exists in a
// kernel that reads planes inside the MMA loop, which should take the skewed variant.
#pragma once

#include "kbit/format.h"
#include "kbit/fragment.h"

namespace kbit::smem {

inline constexpr int kTileK = kbit::kTileK;  // 64 halves of k per tile row
inline constexpr int kChunkHalves = 8;       // one 16-byte chunk
inline constexpr int kChunksPerRow = kTileK / kChunkHalves;  // 8 chunks = 128 bytes per row
static_assert(kChunksPerRow == 8, "the XOR swizzle below needs 8 chunks (128 bytes) per row");

constexpr KBIT_HD bool valid_tm(int TM) { return TM == 16 || TM == 32 || TM == 64; }
constexpr KBIT_HD bool valid_tn(int TN) { return TN == 64 || TN == 128; }

// Physical chunk of logical chunk c in row r. Eight consecutive rows (what one ldmatrix phase
// reads at one logical chunk) land on eight different chunks = all 32 banks.
constexpr KBIT_HD int swizzle_chunk(int row, int chunk) { return chunk ^ (row & 7); }

// ---- (a) activation tile A [TM][64] ---------------------------------------------------------
constexpr KBIT_HD int a_tile_halves(int TM) { return TM * kTileK; }
constexpr KBIT_HD int a_tile_bytes(int TM) { return 2 * a_tile_halves(TM); }
constexpr KBIT_HD int a_tile_offset(int m, int kk) {
  return m * kTileK + swizzle_chunk(m, kk / kChunkHalves) * kChunkHalves + kk % kChunkHalves;
}
constexpr KBIT_HD int a_cp_async_chunk_offset(int chunk) {
  return a_tile_offset(chunk / kChunksPerRow, (chunk % kChunksPerRow) * kChunkHalves);
}
// ldmatrix.x4 matrix q = lane / 8 is mma A register q: rows m0 + 8(q&1), k0 + 8(q>>1).
constexpr KBIT_HD int a_ldmatrix_x4_offset(int lane, int m0, int k0) {
  const int q = frag::ldmatrix_addr_matrix(lane), r = frag::ldmatrix_addr_row(lane);
  return a_tile_offset(m0 + r + 8 * (q & 1), k0 + 8 * (q >> 1));
}

// ---- (b) dequantized B tile W'[TN][64] --------------------------------------------------------
constexpr KBIT_HD int b_tile_halves(int TN) { return TN * kTileK; }
constexpr KBIT_HD int b_tile_bytes(int TN) { return 2 * b_tile_halves(TN); }
constexpr KBIT_HD int b_tile_offset(int n, int kk) { return a_tile_offset(n, kk); }
// Non-trans ldmatrix of 8 n-rows x 8 k gives lane t the pair (n = t/4, k = 2(t%4) + half): that is
// mma B's (k, n) assignment, so W' stored n-major needs no .trans.
constexpr KBIT_HD int b_ldmatrix_x2_offset(int lane, int n0, int k0) {
  const int q = frag::ldmatrix_addr_matrix(lane) & 1, r = frag::ldmatrix_addr_row(lane);
  return b_tile_offset(n0 + r, k0 + 8 * q);
}
constexpr KBIT_HD int b_ldmatrix_x4_offset(int lane, int n0, int k0) {
  const int q = frag::ldmatrix_addr_matrix(lane), r = frag::ldmatrix_addr_row(lane);
  return b_tile_offset(n0 + r + 8 * (q >> 1), k0 + 8 * (q & 1));
}
struct DeqBlock {
  int n = 0, h = 0;
};
constexpr KBIT_HD DeqBlock deq_thread_block(int t) { return {t >> 1, t & 1}; }

// ---- (c) raw bit-plane tile [TN][2][k] words, absmax [TN][2] bytes ----------------------------
constexpr KBIT_HD int bp_row_words(int k) { return 2 * k; }
constexpr KBIT_HD int bp_pad_words(int k, bool skewed) { return skewed && k == 4 ? 4 : 0; }
// Linear (global-order) word w of the tile -> storage word.
constexpr KBIT_HD int bp_storage_word(int w, int k, bool skewed) { return w + bp_pad_words(k, skewed) * (w / 32); }
constexpr KBIT_HD int bp_tile_words(int TN, int k, bool skewed) {
  return TN * bp_row_words(k) + bp_pad_words(k, skewed) * (TN * bp_row_words(k) / 32);
}
constexpr KBIT_HD int bp_tile_bytes(int TN, int k, bool skewed) { return 4 * bp_tile_words(TN, k, skewed); }
constexpr KBIT_HD int bp_word_offset(int n, int h, int b, int k, bool skewed) {
  return bp_storage_word(n * bp_row_words(k) + h * k + b, k, skewed);
}
constexpr KBIT_HD int bp_cp_async_chunks(int TN, int k) { return TN * bp_row_words(k) / 4; }
constexpr KBIT_HD int bp_cp_async_dst_word(int chunk, int k, bool skewed) { return bp_storage_word(4 * chunk, k, skewed); }
constexpr KBIT_HD int bp_absmax_offset(int n, int h) { return n * 2 + h; }
constexpr KBIT_HD int bp_absmax_bytes(int TN) { return 2 * TN; }

struct BpSource {
  int n = 0, h = 0, j = 0;  // block (n, h) of the tile, element j of the block (bit j of each plane)
};
constexpr KBIT_HD BpSource bfrag_bp_source(int lane, int reg, int half, int n0, int k0) {
  const frag::RowCol kn = frag::mma_b(lane, reg, half);
  const int kk = k0 + kn.row;
  return {n0 + kn.col, kk / kBlockSize, kk % kBlockSize};
}

// Declared bank-conflict ways (see the table at the top).
constexpr KBIT_HD int bp_frag_read_ways(int k, bool skewed) { return k == 4 && !skewed ? 2 : 1; }
// Thread t reads words t*k .. t*k+k-1 (both variants: the k = 4 pad does not change the pattern).
// 4-byte loads: stride k words -> k = 2: 2-way, k = 4: 4-way, odd k: free. Widest aligned vector
// (8 bytes for k = 2, 16 bytes for k = 4) is conflict-free.
constexpr KBIT_HD int bp_block_read_ways(int k, int bytes) {
  return bytes == 4 ? (k == 2 ? 2 : k == 4 ? 4 : 1) : 1;
}
constexpr KBIT_HD int bp_block_read_vector_bytes(int k) { return k % 4 == 0 ? 16 : k % 2 == 0 ? 8 : 4; }

static_assert(a_tile_offset(0, 0) == 0 && a_tile_offset(1, 0) == 64 + 8 && a_tile_offset(9, 63) == 9 * 64 + 6 * 8 + 7);
static_assert(bp_tile_words(64, 4, true) == 576 && bp_tile_words(64, 4, false) == 512);
static_assert(bp_word_offset(4, 0, 0, 4, true) == 36 && bp_word_offset(3, 1, 3, 4, true) == 31);

}  // namespace kbit::smem
