// The register decode shared by tcv (mma.sync) and tcw (wgmma): one warp step's A fragments of
// rows g and g + 8 (lib/kbit/tcv_map.h), from the lane's block words of each row.
#pragma once

#include "common.cuh"
#include "kbit/tcv_map.h"

namespace kbit::gpu::detail {

template <Act ACT>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  const typename ActTraits<ACT>::T2 v = ActTraits<ACT>::from_float2(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}

// Pointers to the lane's block at step `first` (k-tile 2 first + q / 2, half q % 2) of rows n_lo
// (j = 0) and n_hi (j = 1); a row past N (row_ok false) points at row 0 and is never read.
template <int KB>
__device__ __forceinline__ void block_pair_pointers(const uint32_t* packed, const uint8_t* absmax, int64_t N,
                                                    int64_t n_lo, int64_t n_hi, int q, int64_t first,
                                                    const bool (&row_ok)[2], const uint32_t* (&pw)[2],
                                                    const uint8_t* (&pa)[2]) {
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    const int64_t n = row_ok[j] ? (j ? n_hi : n_lo) : 0;
    const int64_t blk = ((2 * first + q / 2) * N + n) * kBlocksPerTile + (q & 1);
    pw[j] = packed + blk * KB;
    pa[j] = absmax + blk;
  }
}

// The k bit-plane words and absmax byte of the lane's block in rows g and g + 8 (j = 0, 1) of one
// step, unless `ok` (the step is in range) and row_ok[j] are not both true: then the absmax byte is
// 0 (scale 0.0f) and wn[j] keeps its previous words (kZero: zeros) -- every decode maps any index
// to a finite codebook value, so the block decodes to zeros either way, and not zeroing KB
// registers per row saves instructions in every step (the caller initialises wn once; kZero is for
// loops where ptxas allocates registers worse without the zeros). Then both pointers advance by one
// of the caller's steps (w_step words, a_step bytes).
template <int KB, bool kZero = false>
__device__ __forceinline__ void fetch_block_pair(bool ok, const bool (&row_ok)[2], const uint32_t* (&pw)[2],
                                                 const uint8_t* (&pa)[2], int64_t w_step, int64_t a_step,
                                                 uint32_t (&wn)[2][KB], uint8_t (&sn)[2]) {
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    if (ok && row_ok[j]) {
      load_block_words<KB>(pw[j], wn[j]);
      sn[j] = __ldg(pa[j]);
    } else {
      if constexpr (kZero)
#pragma unroll
        for (int b = 0; b < KB; ++b) wn[j][b] = 0u;
      sn[j] = 0;  // decodes to 0.0f
    }
    pw[j] += w_step;
    pa[j] += a_step;
  }
}

// k >= 4: the A fragment of mma i (0..7) from block_offsets' E/O words of rows g (j = 0) and g + 8
// (j = 1), read from the 256-byte aligned shared codebook at `cb_base` and scaled by sc[j].
// kPrmtLast (tcw): pack the two halves swapped and swap them back with a PRMT, so that the
// register's last writer is a PRMT, not the f32 -> f16x2 conversion: ptxas serializes wgmma whose
// register inputs come straight from that conversion (C7513; measured on the sm_90a build).
template <Act ACT, bool kPrmtLast = false>
__device__ __forceinline__ void frag_from_offsets(const uint32_t (&E)[2][4], const uint32_t (&O)[2][4],
                                                  const float (&sc)[2], uint32_t cb_base, int i, uint32_t (&a)[4]) {
  auto pack = [](float lo, float hi) {
    if constexpr (kPrmtLast) return __byte_perm(pack2<ACT>(hi, lo), 0u, 0x1032u);
    else return pack2<ACT>(lo, hi);
  };
  // mma i takes elements 4i .. 4i+3 of the lane's block: A register r holds row g + 8 (r % 2),
  // elements a_elem(i, r, 0..1) (all in byte c of E for even i, of O for odd i).
  constexpr auto e = tcv::a_elem;
  const int c = tcv::elem_byte(e(i, 0, 0));
  const uint32_t(&src)[2][4] = tcv::elem_in_odd(e(i, 0, 0)) ? O : E;
  a[0] = pack(cb_lds(cb_base, src[0][tcv::elem_word(e(i, 0, 0))], c) * sc[0],
              cb_lds(cb_base, src[0][tcv::elem_word(e(i, 0, 1))], c) * sc[0]);  // row g
  a[1] = pack(cb_lds(cb_base, src[1][tcv::elem_word(e(i, 1, 0))], c) * sc[1],
              cb_lds(cb_base, src[1][tcv::elem_word(e(i, 1, 1))], c) * sc[1]);  // row g+8
  a[2] = pack(cb_lds(cb_base, src[0][tcv::elem_word(e(i, 2, 0))], c) * sc[0],
              cb_lds(cb_base, src[0][tcv::elem_word(e(i, 2, 1))], c) * sc[0]);
  a[3] = pack(cb_lds(cb_base, src[1][tcv::elem_word(e(i, 3, 0))], c) * sc[1],
              cb_lds(cb_base, src[1][tcv::elem_word(e(i, 3, 1))], c) * sc[1]);
}

// k <= 3: the byte-table pairs of both rows (block_table_pairs; tcv_map.h's bt_* map picks the
// A registers of mma i as W[r % 2][bt_pair_r(i, r)][bt_pair_c(i)]). cbr: the 2^k codebook entries.
template <Act ACT, int KB>
__device__ __forceinline__ void table_pairs(const uint32_t (&wc)[2][KB], const float (&sc)[2], const float* cbr,
                                            uint32_t (&W)[2][4][4]) {
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    uint32_t P[1 << (KB - 1)], Lt[2], Ht[2];
#pragma unroll
    for (int p = 0; p < (1 << (KB - 1)); ++p) P[p] = pack2<ACT>(cbr[2 * p] * sc[j], cbr[2 * p + 1] * sc[j]);
    byte_tables<KB>(P, Lt, Ht);
    block_table_pairs<KB>(wc[j], Lt, Ht, W[j]);
  }
}

// ---------------------------------------------------------------------------------------------
// k = 4 pair table (tcw and the dense k = 4 tcv with TiledView::half_cb; grouped tcv and the dense
// k = 3 tcv use the table of adjacent pairs below): the 256 codebook pairs (cb[e & 15], cb[e >> 4])
// rounded to the activation type, one 32-bit entry per byte e of block_nibbles' output, each entry
// repeated in 32 consecutive words (one per lane: 32 KB) so that lane l reads word l of a 128-byte
// row and a warp's loads never conflict, whatever the indices. A pair then costs one byte extract,
// one address multiply-add, one shared load and one packed multiply by the block scale, against
// two extracts, two loads, two multiplies, a conversion and a PRMT for frag_from_offsets.
// Numerics: W' = rn(rn(cb) * dec) in the activation type (two roundings; dec, an E4M4 value, is
// exact in fp16 and bf16), where frag_from_offsets rounds cb * dec once. TiledView::half_cb keeps
// rn(cb) free of an absolute (subnormal) error; kbit-verify derives its tolerance for it.
// kPairTableRows<3> (128 rows, 16 KB: block_nibbles<3> codes stay below 0x78) is only a size now: the
// k = 3 tcv reserves it for its table of adjacent pairs (8 KB used; tcv.cu, tcv_dyn_smem); the
// stagers below build the k = 4 table.
template <int KB>
inline constexpr int kPairTableRows = KB == 3 ? 128 : 256;
// The table's shared-memory bytes: 32 words of 4 bytes per row (32 KB at k = 4, 16 KB at k = 3).
template <int KB>
inline constexpr int kPairTableBytes = kPairTableRows<KB> * 32 * 4;

// Stage the (k = 4) table from the fp32 codebook in shared memory; caller synchronises before and
// after. The dense k = 4 tcv and grouped_tcw stage it so (stage_pair_table_vec below measured slower
// or was not measured there).
template <Act ACT>
__device__ __forceinline__ void stage_pair_table(const float* cb_s, uint4* table) {
  for (int i = threadIdx.x; i < kPairTableRows<4> * 8; i += blockDim.x) {
    const int e = i / 8;  // 8 uint4 = 32 words per entry
    const uint32_t v = pack2<ACT>(cb_s[e & 15], cb_s[e >> 4]);
    table[i] = make_uint4(v, v, v, v);
  }
}

// The same table, staged by all kThreads threads of the CTA (tcw: 256; a multiple of 128 that divides its 8 *
// kPairTableRows<4> vectors) with ~4 instructions per 16-byte vector where the loop above takes
// ~19: thread t stores the vectors t + kThreads j (consecutive threads, consecutive vectors: no
// bank conflict), whose entries e = t / 8 + (kThreads / 8) j share the low nibble (t / 8) % 16, so
// the thread reads that codebook entry once and one more per vector. ncu source counters of grouped
// tcv on Qwen3-Coder-Next experts.gate_up at M = 1 put 16% of its instructions in the loop above.
// H100, same calls (bench/results/2026-11-26-h100-stage): grouped tcv fully unrolled (kUnroll 16:
// ptxas then issues the first weight loads after the table) 1.113 / 1.078 / 1.070 / 1.030 / 1.055
// geomean at M = 1 / 2 / 4 / 8 / 16 tokens, k = 4, unrolled by 4 only 1.041 .. 0.961; tcw unrolled
// by 4 1.010 (fully: 0.993); the dense tcv lost with either (Llama-3-8B gate_up M = 16 0.88x, cause
// not found: same registers, the same step loop give or take 6 instructions), so it keeps the loop
// above. (grouped tcv has since moved to the table of adjacent pairs, stage_adj_table, 2026-11-27.)
template <Act ACT, int kThreads, int kUnroll>
__device__ __forceinline__ void stage_pair_table_vec(const float* cb_s, uint4* table) {
  static_assert(kThreads % 128 == 0 && (kPairTableRows<4> * 8) % kThreads == 0, "threads per CTA");
  const int t = threadIdx.x;
  const float lo = cb_s[(t / 8) % 16];
#pragma unroll kUnroll
  for (int j = 0; j < kPairTableRows<4> * 8 / kThreads; ++j) {
    const uint32_t v = pack2<ACT>(lo, cb_s[t / 128 + (kThreads / 128) * j]);  // entry e: e >> 4
    table[t + kThreads * j] = make_uint4(v, v, v, v);
  }
}

// Packed multiply of two half2 / bfloat162 bit patterns, one rounding per half.
template <Act ACT>
__device__ __forceinline__ uint32_t mul2(uint32_t a, uint32_t b) {
  uint32_t d;
  if constexpr (ACT == Act::f16) {
    asm("mul.rn.f16x2 %0, %1, %2;\n" : "=r"(d) : "r"(a), "r"(b));
  } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    // mul.bf16x2 needs sm_90; a * b + (-0) rounds once and keeps the sign of a zero product.
    asm("fma.rn.bf16x2 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(0x80008000u));
#else
    asm("mul.rn.bf16x2 %0, %1, %2;\n" : "=r"(d) : "r"(a), "r"(b));
#endif
  }
  return d;
}

// The A fragment of mma i (0..7) from the nibble words T[j] (block_nibbles) of rows g (j = 0) and
// g + 8 (j = 1), in tcv_map.h's bt_* map (the k <= 3 one: A register r of mma i is the pair at
// byte bt_pair_c(i) of T[r % 2][bt_pair_r(i, r)]), scaled by the packed block scales sc2[j].
// lane_base: shared-window address of the table plus 4 * lane.
template <Act ACT>
__device__ __forceinline__ void frag_from_pairs(const uint32_t (&T)[2][4], const uint32_t (&sc2)[2],
                                                uint32_t lane_base, int i, uint32_t (&a)[4]) {
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const uint32_t e = __byte_perm(T[r & 1][tcv::bt_pair_r(i, r)], 0u, 0x4440u + tcv::bt_pair_c(i));
    uint32_t v;
    asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(lane_base + 128u * e));
    a[r] = mul2<ACT>(v, sc2[r & 1]);
  }
}

// ---------------------------------------------------------------------------------------------
// The adjacent-pair table of k = 3, 4 (grouped tcv and the dense k = 3 tcv; tcw and the dense k = 4
// tcv keep the table above): entry v
// is (cb[adjacent_nibble_lo(v)], cb[adjacent_nibble_hi(v)]) rounded to the activation type, each
// entry repeated in 32 consecutive words as above, indexed by the codes of block_adjacent_nibbles
// (lib/kbit/block_decode.h), whose pairs are adjacent elements: the mma's B registers are then the
// activation words as loaded, where the table above needs two PRMT joins per mma and n8 tile
// (16 per warp step at M <= 8). Same numerics: W' = rn(rn(cb) * dec). k = 3 codes are < 64: rows
// 0..63 (8 KB) are staged.
template <int KB>
inline constexpr int kAdjTableRows = KB == 3 ? 64 : 256;

// Stage it from the fp32 codebook in shared memory with all kThreads = 128 threads of the CTA (the
// split below needs exactly 128); the caller synchronises before and after. Thread t stores the
// 16-byte vectors t + 128 j, entries v = t / 8 + 16 j: the low nibble of v is fixed per thread, so
// the codebook values it needs are the 4 (k = 3: 2) of each half picked by v's high bits (bits 4, 6
// and 5, 7), read once; each vector is then one pack and one store.
template <Act ACT, int KB, int kThreads>
__device__ __forceinline__ void stage_adj_table(const float* cb_s, uint4* table) {
  static_assert(kThreads == 128, "v = t / 8 + 16 j covers the rows with exactly 128 threads");
  constexpr int kPer = kAdjTableRows<KB> * 8 / kThreads;  // vectors per thread: 16 (k = 4), 4 (k = 3)
  const int t = threadIdx.x, v0 = t / 8;  // 0..15
  constexpr int kM = KB == 3 ? 2 : 4;  // k = 3: v < 64, so index bit 3 stays clear
  float lo[kM], hi[kM];
#pragma unroll
  for (int m = 0; m < kM; ++m) {  // m: bits 4, 6 (lo) or 5, 7 (hi) of v as index bits 2, 3
    lo[m] = cb_s[adjacent_nibble_lo(v0) | m << 2];
    hi[m] = cb_s[adjacent_nibble_hi(v0) | m << 2];
  }
#pragma unroll
  for (int j = 0; j < kPer; ++j) {  // v = v0 + 16 j: j's bits 0, 2 are index bits 2, 3 of lo; 1, 3 of hi
    const uint32_t v = pack2<ACT>(lo[adjacent_nibble_lo(j)], hi[adjacent_nibble_hi(j)]);
    table[t + kThreads * j] = make_uint4(v, v, v, v);
  }
}

// The A fragment of mma i (0..7) from the codes Q[j] (block_adjacent_nibbles) of rows g (j = 0)
// and g + 8 (j = 1): the pairs at elements 4i (k-slots 2q, 2q + 1: registers 0, 1) and 4i + 2
// (slots 2q + 8, 2q + 9: registers 2, 3) of the lane's block q, i.e. pair m = 2i, 2i + 1 in byte m / 4
// of Q[j][m % 4], scaled by the packed block scales sc2[j]; the B registers of the same mma are
// activation words 2i and 2i + 1 of the block. lane_base: the table's shared-window address plus 4 * lane.
template <Act ACT>
__device__ __forceinline__ void frag_from_adj(const uint32_t (&Q)[2][4], const uint32_t (&sc2)[2],
                                              uint32_t lane_base, int i, uint32_t (&a)[4]) {
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int m = 2 * i + r / 2;
    const uint32_t e = __byte_perm(Q[r & 1][m % 4], 0u, 0x4440u + m / 4);
    uint32_t v;
    asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(lane_base + 128u * e));
    a[r] = mul2<ACT>(v, sc2[r & 1]);
  }
}

// ---------------------------------------------------------------------------------------------
// k = 2 pair table (tcv with TiledView::half_cb): the 16 codebook pairs of block_adjacent_pairs2's
// codes, entry v = (cb[adjacent_pair_lo(v)], cb[adjacent_pair_hi(v)]) rounded to the activation type,
// one 32-bit word each -- 64 bytes in distinct banks, so a warp's loads never conflict whatever the
// indices, and no lane copies are needed. The table is 256-byte aligned, so one PRMT forms a whole
// address (table_byte_addr). A pair of weights then costs
// that PRMT, one shared load and one packed multiply by the block scale, and the pairs are adjacent
// elements, so the B registers are the activation words as loaded (no PRMT joins). The byte tables
// of k <= 3 (block_table_pairs, the bt_* map) spend ~2.4 integer-pipe instructions per weight at
// M = 1, where that pipe is the limit (docs/perf-notes.md). Numerics as the k = 4 pair table:
// W' = rn(rn(cb) * dec).
inline constexpr int kPairTable2Words = 16;

// Stage the table from the fp32 codebook in shared memory; caller synchronises before and after.
template <Act ACT>
__device__ __forceinline__ void stage_pair_table2(const float* cb_s, uint32_t* table) {
  for (int v = threadIdx.x; v < kPairTable2Words; v += blockDim.x)
    table[v] = pack2<ACT>(cb_s[adjacent_pair_lo(v)], cb_s[adjacent_pair_hi(v)]);
}

// The pair at byte c of an offsets word of block_adjacent_pairs2 from the table at shared-window
// address `base` (256-byte aligned), times the packed block scale sc2.
template <Act ACT>
__device__ __forceinline__ uint32_t pair2_lds(uint32_t offsets, uint32_t base, int c, uint32_t sc2) {
  const uint32_t addr = table_byte_addr(base, offsets, c);
  uint32_t v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr));
  return mul2<ACT>(v, sc2);
}

}  // namespace kbit::gpu::detail
