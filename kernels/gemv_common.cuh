// What gemv.cu (the dense scalar GEMV) and grouped_gemv.cu (its MoE form) share: the CTA shape, the register and
// staged pipelines over one tile of 64 output rows (gemv_tile) and their shared-memory layouts.
//
// The scalar GEMV for M = 1..4 (seed 003's scalar kernel, reshaped for the tiled layout) and its grouped MoE
// form.
//
// CTA = 4 warps over one tile of 64 output rows. In a warp, lane = 2 * slot + h: the lane owns
// rows n0 + slot + 16 j (j = 0..3) and block h of every k-tile it visits, so for one k-tile and
// one j the warp reads 16 consecutive rows x 2 blocks x k words -- a contiguous 128 k-byte run.
// The 4 warps take interleaved k-tiles of the CTA's K slice; partial sums meet in shared memory.
// Each weight costs its index extraction, one shared-memory codebook read (2^k <= 32 floats sit
// in distinct banks, so any index pattern is conflict-free) and one FMA per activation row; the
// block scale is applied once per block. Indices come out of the bit planes through
// block_offsets (lib/kbit/block_decode.h). At M = 1, k = 4 the loop is 5.86 instructions per weight
// (SASS: lookup + FMA 3.1, transpose 1.4, the rest loads and copies; docs/perf-notes.md). At k = 2
// and M >= 2 a 16-entry table of float2 codebook pairs serves two weights per PRMT + 8-byte load
// (block_pair_offsets2, kUsePairs); the products and their order are the same. At k = 2 and M = 1
// the 16 pairs are adjacent elements coded straight from the bit planes (block_adjacent_pairs2, no
// transpose; PT); k = 3 and 4 have pair tables of their own (PT, stage_pair_table). At M = 1, k = 2 from
// kGemvLutMinWeights the register pipeline looks up per-warp tables of activation sums instead (KBIT_GEMV_LUT, LU):
// one 4-byte entry per pair of weights, no activation conversions or FFMAs in the loop.
// Activations are converted to fp32 once per 8 elements and reused across the lane's 4 rows; at M = 1
// (except on cluster grids) they are loaded with the weights of their k-tile (gemv_tile's PA).
// A warp keeps one k-tile of weights in flight ahead of the one it decodes (registers); the staged
// form (ST, M = 1, gemv_use_staged: small grids) requests all of a warp's k-tiles, up to 4, at once
// through shared memory instead.
#pragma once

#include <type_traits>

#include "common.cuh"
#include "kbit/gemv_sched.h"
#include "launch.h"
#include "timeline.cuh"

namespace kbit::gpu::detail {

namespace {
constexpr int kGemvThreads = kGemvWarps * 32;  // kGemvWarps, kGemvRows: lib/kbit/gemv_sched.h
constexpr int kRowsPerLane = 4;                 // kGemvRows / 16 slots
// The k = 2 pair table serves M >= 2 only. On the H100 (bench/results/2026-11-25-h100-tables against
// the 2026-11-24-h100-bits record without it) it took Llama-3-70B gate_up from 119.2 to 114.0 us at M = 2 and
// 188.4 to 180.7 at M = 4 (geometric mean over the 27 catalogue shapes: 1.00 at M = 2, 0.95 at M = 4);
// an M = 1 variant measured slower in the cut-off session of 2026-11-24 (not recorded). M = 1 takes
// the adjacent-pair table instead (PT; 2026-11-26-h100-gemvadj), which at M = 2..4 measured 0.99
// against this one.
template <int KB, int MV>
constexpr bool kUsePairs = KB == 2 && MV >= 2;

// The pair table (PT, k = 3 and 4): entry e = lo | hi << 4 holds the float2 (cb[lo], cb[hi]), the
// pair of elements (8c + r, 8c + 4 + r) that byte c of block_nibbles' T[r] indexes, in kPairCopies
// copies side by side (entry e, copy q at float2 index e * kPairCopies + q). Lane l reads copy l % 16,
// so the 16 lanes of a half-warp -- one 8-byte load is served per half-warp -- hit distinct bank pairs
// whatever the indices. Per pair of weights: PRMT (the index byte), LEA (the address), one 8-byte
// shared load and the FMAs, against PRMT + load per weight for the float codebook, with the same
// products in the same order.
constexpr int kPairCopies = 16;
// float2 entries of the table: 256 pairs at k = 4 (32 KB); at k = 3 block_nibbles' bytes are
// lo | hi << 4 with lo, hi < 8, so the first 128 entries hold every pair (16 KB; those with lo >= 8
// are never read).
template <int KB>
constexpr int kPairTable = KB == 2 ? 16 : (KB == 4 ? 256 : 128) * kPairCopies;

// KBIT_GEMV_TIMELINE (diagnostic knob, default 0; off, the kernels are the same source): in the register
// pipeline, lane 0 of each warp stamps its SM clock at four points of each step into the buffer
// gemv_timeline_set gives (the first 64 steps of the first `ctas` CTAs of each launch; layout in launch.h):
// 0 the step's top; 1 its tile's loads arrived (a branch on the tile's words waits for them); 2 the next tile's
// loads issued; 3 the step's sums done (a branch on them). Each CTA records its SM, globaltimer and SM clock at
// the tile's start and end, and its steps. For where a warp's time goes: waiting (1 - 0) or decoding (3 - 2).
#ifndef KBIT_GEMV_TIMELINE
#define KBIT_GEMV_TIMELINE 0
#endif
static_assert(kGemvTlWarps == kGemvWarps, "the timeline's layout (launch.h) has a row per warp");
#if KBIT_GEMV_TIMELINE
__device__ uint32_t* g_gemv_tl = nullptr;
__device__ int g_gemv_tl_ctas = 0;
using GemvTl = Timeline<kGemvTlWarps, kGemvTlSteps, kGemvTlEvents, kGemvTlCtaWords>;
// The XOR of a register tile's words (and, with PA, its activations): a value that waits for all of its loads.
template <class Tile>
__device__ __forceinline__ uint32_t gemv_tl_fold(const Tile& t) {
  uint32_t v = 0;
  for (const auto& row : t.w)
    for (uint32_t x : row) v ^= x;
  for (uint8_t x : t.s) v ^= x;
  if constexpr (requires { t.a; })
    for (const uint4& x : t.a) v ^= x.x ^ x.w;
  return v;
}
#endif

// The warp's table: pair p (0..15) of block h at byte p * 128 + h * 64, entry v at byte 4 v ^ 16 (p % 4) (the
// swizzle keeps the 16-byte stores of the 8 lanes of a quarter-warp in distinct bank groups).
constexpr int kLutWarpFloats = 512;

// The staged form (gemv_kernel's ST > 0, M = 1): a ring of ST slots per warp in dynamic shared
// memory, one slot per k-tile the warp runs (its words, then its absmax bytes), and after the 4
// rings the activations of the CTA's K slice (at most ST k-tiles per warp).
template <int KB>
constexpr int kStageWordBytes = kRowsPerLane * 32 * KB * 4;
template <int KB>
constexpr int kStageSlotBytes = kStageWordBytes<KB> + kRowsPerLane * 32;
template <int KB, int ST>
constexpr int kStageBytes = kGemvWarps * ST * (kStageSlotBytes<KB> + kTileK * 2);

// One block's k words, global -> shared (cp.async; 16 bytes at k = 4, 8 at k = 2, words otherwise).
template <int KB>
__device__ __forceinline__ void cp_async_block_words(uint32_t* dst, const uint32_t* src) {
  if constexpr (KB == 4) {
    cp_async16(dst, src, true);
  } else if constexpr (KB == 2) {
    cp_async8(dst, src);
  } else {
#pragma unroll
    for (int b = 0; b < KB; ++b) cp_async4(dst + b, src + b, 4);
  }
}

// cp.async.wait_group with a run-time count n < ST (the instruction takes an immediate).
template <int ST>
__device__ __forceinline__ void cp_async_wait_dyn(int n) {
  static_assert(ST <= 4, "counts 0..3");
  if (ST > 3 && n >= 3)
    cp_async_wait<3>();
  else if (ST > 2 && n == 2)
    cp_async_wait<2>();
  else if (ST > 1 && n == 1)
    cp_async_wait<1>();
  else
    cp_async_wait<0>();
}

// Resident CTAs per SM the register allocation must allow (a launch bound: 4 CTAs <= 128 registers,
// 3 <= 168, 2 <= 255). Set when the step loop was rebuilt (2026-11-26): without it ptxas gave some
// M = 2 and grouped kernels fewer CTAs per SM than before; the bounds keep the old occupancy where
// the loop fits without spills (grouped kernels carry the work-item prologue on top). The measured
// kernels use them.
template <int KB, int MV, bool GROUPED>
constexpr int kGemvMinBlocks = MV == 1 ? 4 : GROUPED ? (MV == 2 ? 3 : 2) : MV == 2 ? 4 : KB == 5 ? 2 : 3;


}  // namespace

// One CTA: rows [n0, n0 + 64) of one weight matrix, k-tiles [kt_begin, kt_end), activation rows
// [0, rows) of A (rows <= MV); the sums of the 4 warps land in `red`. `stage` fills the shared
// codebook and synchronises the CTA: it runs after the first weight loads are issued, so the
// codebook's memory round trip overlaps theirs instead of preceding them.
// LU (KBIT_GEMV_LUT; M = 1, k = 2 on the adjacent-pair table, register pipeline): `lut` is the CTA's
// kGemvWarps * kLutWarpFloats floats (256-byte aligned) of activation-sum tables, one per warp.
template <Act ACT, int KB, int MV, bool PT = false, bool PA = false, int ST = 0, bool LU = false, class Stage>
__device__ __forceinline__ void gemv_tile(Stage&& stage, const typename ActTraits<ACT>::T* __restrict__ A,
                                          const uint32_t* __restrict__ packed, const uint8_t* __restrict__ absmax,
                                          const float* cb_s, const float2* pair_s, int64_t N, int64_t K, int rows,
                                          int64_t n0,
                                          int64_t kt_begin, int64_t kt_end, float (*red)[MV][kGemvRows],
                                          unsigned char* ring = nullptr, float* lut = nullptr) {
  using Tr = ActTraits<ACT>;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int slot = lane >> 1, h = lane & 1;
  const int kblocks = static_cast<int>(k_blocks(K));
  const int kt_last = static_cast<int>(kt_end);
  static_assert(!PT || KB <= 4, "pair tables for k = 2, 3 and 4");
  // PT: the shared-window address of the lane's copy of the pair table (pair_s is the table then;
  // at k = 2 the one 256-byte aligned copy). The loads below take it in inline PTX: through a float2
  // pointer the compiler rebuilt the float2 index (three instructions per pair) instead of one LEA.
  const uint32_t ptab_lane = static_cast<uint32_t>(__cvta_generic_to_shared(pair_s)) +
                             (KB == 2 ? 0u : 8u * static_cast<uint32_t>(lane % kPairCopies));

  float acc[MV][kRowsPerLane];
#pragma unroll
  for (int m = 0; m < MV; ++m)
#pragma unroll
    for (int j = 0; j < kRowsPerLane; ++j) acc[m][j] = 0.0f;

  // Software pipeline: the words and absmax bytes of the warp's next k-tile are loaded before the
  // current one is decoded, so two k-tiles of weights are in flight per warp (one load burst per
  // k-tile left the DRAM queue empty while the warp decoded: 64% of bandwidth on the largest shape).
  // Nothing is zero-filled: rows past N load nothing (their sums are never stored; the staged form
  // decodes whatever its ring slots hold for them, table lookups that stay in bounds), the pad block of
  // K % 64 == 32 is stored in the layout (zero words, absmax 0) and is skipped before its activations
  // are read, and past kt_end nothing is loaded or used. The step copies the next tile's registers
  // instead of swapping two buffers in a loop unrolled by two: the unrolled loop (twice the code)
  // measured 1.02x against main's at M = 1, k = 4 where this one measures 1.05x
  // (bench/results/2026-11-26-h200-gemvlean).
  // PA (M = 1): the tile also carries the lane's 32 activations of its block (4 x 16 bytes), loaded
  // with the tile's words, so their L2 round trip runs beside the weights' instead of after them
  // (ncu, grouped_gemv at K = 512: 11% of stall samples waited on the activations once the weights
  // were in; bench/results/2026-11-26-h100-itemsfence/ncu-after). The callers turn it on at M = 1
  // except on the cluster grids (gemv_kernel's CL), where it measured 0.93-0.98x
  // (bench/results/2026-11-26-h100-prefetcha).
  static_assert(!PA || MV == 1, "activation prefetch at M = 1 only");
  struct TileW {
    uint32_t w[kRowsPerLane][KB];
    uint8_t s[kRowsPerLane];
  };
  struct TileWA : TileW {
    uint4 a[kBlockSize / 8];
  };
  struct TileWX : TileW {
    uint32_t xa;  // LU: the activation pair whose table the lane writes (elements 2 slot, 2 slot + 1 of block h)
  };
  static_assert(!LU || (PT && KB == 2 && MV == 1 && ST == 0 && !PA), "LU: k = 2, M = 1, register pipeline");
  // without PA or LU, main's tile exactly (same SASS)
  using Tile = std::conditional_t<PA, TileWA, std::conditional_t<LU, TileWX, TileW>>;
  // Rows past N exist only in the last row tile; there the lane's rows are checked one by one.
  const bool all_rows = n0 + kGemvRows <= N;
  const int rows_left = static_cast<int>(all_rows ? kGemvRows : N - n0);
  bool row_ok[kRowsPerLane];
#pragma unroll
  for (int j = 0; j < kRowsPerLane; ++j) row_ok[j] = slot + 16 * j < rows_left;
  // Block (kt, n, h) is at word ((kt * N + n) * 2 + h) * k and absmax byte (kt * N + n) * 2 + h: the
  // lane's 4 rows are constant offsets from one 32-bit block index per k-tile (the host keeps one
  // matrix's packed words below 2^32, gemv_fits in launch.h).
  uint32_t blk = static_cast<uint32_t>(((kt_begin + warp) * N + n0 + slot) * kBlocksPerTile + h);
  const uint32_t blk_step = static_cast<uint32_t>(kGemvWarps * N * kBlocksPerTile);  // the warp's next k-tile
  auto fetch = [&](Tile& t, int kt, uint32_t b) {  // kt is warp-uniform
    if (kt >= kt_last) return;
    const uint32_t* wq = packed + b * KB;
    const uint8_t* sq = absmax + b;
    auto load_row = [&](int j) {
      load_block_words<KB>(wq + 16 * kBlocksPerTile * KB * j, t.w[j]);
      t.s[j] = __ldg(sq + 16 * kBlocksPerTile * j);
    };
    if (all_rows) {  // every CTA but the last row tile: no row predicates
#pragma unroll
      for (int j = 0; j < kRowsPerLane; ++j) load_row(j);
    } else {
#pragma unroll
      for (int j = 0; j < kRowsPerLane; ++j)
        if (row_ok[j]) load_row(j);
    }
  };
  // Activation row m of the tile; rows past `rows` (a grouped work item with fewer rows than MV)
  // read row rows - 1 again instead of branching to zeros: their sums are never stored.
  int64_t a_row[MV];
#pragma unroll
  for (int m = 0; m < MV; ++m) a_row[m] = static_cast<int64_t>(m < rows ? m : rows - 1) * K;
  // PA: the activations of the lane's block in k-tile kt (none past kt_end or for the pad
  // block). A separate step from fetch: the first tile's words go out before `stage`, which holds
  // the PDL wait, and A may be read only after it.
  auto fetch_a = [&](Tile& t, int kt) {
    if constexpr (LU) {
      if (kt >= kt_last) return;
      const int kb = kt * kBlocksPerTile + h;
      t.xa = kb < kblocks ? __ldg(reinterpret_cast<const uint32_t*>(A + static_cast<int64_t>(kb) * kBlockSize + 2 * slot))
                          : 0u;
    }
    if constexpr (PA) {
      const int kb = kt * kBlocksPerTile + h;
      if (kt >= kt_last || kb >= kblocks) return;
      const uint4* ap = reinterpret_cast<const uint4*>(A + a_row[0] + static_cast<int64_t>(kb) * kBlockSize);
#pragma unroll
      for (int c = 0; c < kBlockSize / 8; ++c) t.a[c] = __ldg(ap + c);
    }
  };
  // ST (kStageBytes): the slice's activations (M = 1) in shared memory after the per-warp rings.
  static_assert(ST == 0 || (MV == 1 && !PA), "staged weights at M = 1, activations from the staged slice");
  const int kt_first = static_cast<int>(kt_begin);
  const uint4* a_slice = reinterpret_cast<const uint4*>(ring + kGemvWarps * ST * kStageSlotBytes<KB>);
  // LU: the warp's table (lut_w, 256-byte aligned) and, per s, the bits a lookup's byte offset carries besides
  // 4 v: the swizzle 16 s (pair p = 4 c + s) and block h's half of the banks (64 h); cb_r: the codebook, read
  // from the staged pair table after the stage (entries 0, 1, 4, 5 hold cb[0..3] in .x).
  uint32_t lut_w = 0, lut_hs[4] = {}, lut_st = 0;
  float cb_r[4] = {};
  if constexpr (LU) {
    lut_w = static_cast<uint32_t>(__cvta_generic_to_shared(lut)) + 4u * kLutWarpFloats * static_cast<uint32_t>(warp);
#pragma unroll
    for (int s2 = 0; s2 < 4; ++s2) lut_hs[s2] = static_cast<uint32_t>(16 * s2 + 64 * h) * 0x01010101u;
    // the lane writes pair `slot` of block h: entry quad q at byte slot * 128 + 64 h + 16 (q ^ slot % 4)
    lut_st = lut_w + 128u * static_cast<uint32_t>(slot) + 64u * static_cast<uint32_t>(h) + 16u * (slot & 3);
  }
  auto lut_build = [&](const Tile& t) {
    if constexpr (LU) {
      const float2 x = Tr::to_float2(*reinterpret_cast<const typename Tr::T2*>(&t.xa));
      float u[4], v[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        u[i] = cb_r[i] * x.x;
        v[i] = cb_r[i] * x.y;
      }
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        float e[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) e[i] = u[adjacent_pair_lo(4 * q + i)] + v[adjacent_pair_hi(4 * q + i)];
        asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(lut_st ^ (16u * q)), "f"(e[0]), "f"(e[1]),
                     "f"(e[2]), "f"(e[3])
                     : "memory");
      }
    }
  };
  // LU's step: the lookups of the warp's table (written by lut_build before the step).
  auto step_lu = [&](const Tile& t, int kt) {
    if constexpr (LU) {
      if (kt * kBlocksPerTile + h >= kblocks) return;  // the zero pad block when K % 64 == 32
      // E[j][s] byte c: pair 4 c + s's entry offset, 4 v ^ 16 s | 64 h (the lane's table half, swizzled).
      uint32_t E[kRowsPerLane][4];
#pragma unroll
      for (int j = 0; j < kRowsPerLane; ++j) {
        block_adjacent_pairs2<4>(t.w[j], E[j]);
#pragma unroll
        for (int s2 = 0; s2 < 4; ++s2) E[j][s2] ^= lut_hs[s2];
      }
      float b0[kRowsPerLane], b1[kRowsPerLane];  // two chains per row (even and odd c), each from its first entry
#pragma unroll
      for (int c = 0; c < kBlockSize / 8; ++c)
#pragma unroll
        for (int j = 0; j < kRowsPerLane; ++j)
#pragma unroll
          for (int s2 = 0; s2 < 4; ++s2) {
            // pair p = 4 c + s2's table at byte p * 128 (an immediate of the load)
            const uint32_t addr = table_byte_addr(lut_w, E[j][s2], c) + static_cast<uint32_t>(512 * c + 128 * s2);
            float v;
            asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr) : "memory");
            float& b = c % 2 ? b1[j] : b0[j];
            b = c < 2 && s2 == 0 ? v : b + v;
          }
#pragma unroll
      for (int j = 0; j < kRowsPerLane; ++j) acc[0][j] = fmaf(b0[j] + b1[j], absmax_scale(t.s[j]), acc[0][j]);
    }
  };
  auto step = [&](const Tile& t, int kt) {
    const int kb = kt * kBlocksPerTile + h;
    if (kb >= kblocks) return;  // the zero pad block when K % 64 == 32
    // E/O: byte offsets per element (block_offsets); at k = 2, E holds one offset per element pair
    // into the float2 pair table instead (block_pair_offsets2) and O is unused.
    // PT: E holds block_nibbles' T words (byte c of E[j][r] = pair index of elements 8c + r, 8c + 4 + r);
    // at k = 2 block_adjacent_pairs2's float2 offsets (byte c of E[j][s]: the pair 8c + 2s, 8c + 2s + 1).
    uint32_t E[kRowsPerLane][4], O[kRowsPerLane][4];
#pragma unroll
    for (int j = 0; j < kRowsPerLane; ++j) {
      if constexpr (PT && KB == 2)
        block_adjacent_pairs2<8>(t.w[j], E[j]);
      else if constexpr (PT)
        block_nibbles<KB>(t.w[j], E[j]);
      else if constexpr (kUsePairs<KB, MV>)
        block_pair_offsets2(t.w[j], E[j]);
      else
        block_offsets<KB>(t.w[j], E[j], O[j]);
    }
    float bsum[MV][kRowsPerLane];
#pragma unroll
    for (int m = 0; m < MV; ++m)
#pragma unroll
      for (int j = 0; j < kRowsPerLane; ++j) bsum[m][j] = 0.0f;
    const typename Tr::T* a_blk = A + static_cast<int64_t>(kb) * kBlockSize;
#pragma unroll
    for (int c = 0; c < kBlockSize / 8; ++c) {
      float a[MV][8];
#pragma unroll
      for (int m = 0; m < MV; ++m) {
        uint4 raw;
        if constexpr (ST > 0)
          raw = a_slice[(kt - kt_first) * (kTileK / 8) + h * (kBlockSize / 8) + c];
        else if constexpr (PA)
          raw = t.a[c];
        else
          raw = __ldg(reinterpret_cast<const uint4*>(a_blk + a_row[m] + 8 * c));
        const typename Tr::T2* p = reinterpret_cast<const typename Tr::T2*>(&raw);
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const float2 f = Tr::to_float2(p[q]);
          a[m][2 * q] = f.x;
          a[m][2 * q + 1] = f.y;
        }
      }
      if constexpr (PT && KB == 2) {
        // Adjacent pairs: one PRMT forms the whole address (256-byte aligned table: table_byte_addr).
#pragma unroll
        for (int j = 0; j < kRowsPerLane; ++j)
#pragma unroll
          for (int s2 = 0; s2 < 4; ++s2) {
            float lo, hi;  // elements 8c + 2 s2 and 8c + 2 s2 + 1
            const uint32_t addr = table_byte_addr(ptab_lane, E[j][s2], c);
            asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(lo), "=f"(hi) : "r"(addr));
#pragma unroll
            for (int m = 0; m < MV; ++m) {
              bsum[m][j] = fmaf(lo, a[m][2 * s2], bsum[m][j]);
              bsum[m][j] = fmaf(hi, a[m][2 * s2 + 1], bsum[m][j]);
            }
          }
      } else {
#pragma unroll
        for (int j = 0; j < kRowsPerLane; ++j)
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            float lo, hi;  // elements 8c + r and 8c + 4 + r
            if constexpr (PT) {
              const uint32_t e = __byte_perm(E[j][r], 0u, 0x4440u + static_cast<uint32_t>(c));
              asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(lo), "=f"(hi) : "r"(ptab_lane + (e << 7)));
            } else if constexpr (kUsePairs<KB, MV>) {
              const float2 v = cb_pair(pair_s, E[j][r], c);
              lo = v.x;
              hi = v.y;
            } else {
              lo = cb_byte(cb_s, E[j][r], c);
              hi = cb_byte(cb_s, O[j][r], c);
            }
#pragma unroll
            for (int m = 0; m < MV; ++m) {
              bsum[m][j] = fmaf(lo, a[m][r], bsum[m][j]);
              bsum[m][j] = fmaf(hi, a[m][4 + r], bsum[m][j]);
            }
          }
      }
    }
#pragma unroll
    for (int j = 0; j < kRowsPerLane; ++j) {
      const float scale = absmax_scale(t.s[j]);
#pragma unroll
      for (int m = 0; m < MV; ++m) acc[m][j] = fmaf(bsum[m][j], scale, acc[m][j]);
    }
  };

  int kt = static_cast<int>(kt_begin) + warp;
#if KBIT_GEMV_TIMELINE
  const GemvTl tl = GemvTl::make(g_gemv_tl, g_gemv_tl_ctas, static_cast<int>(blockIdx.x + gridDim.x * blockIdx.y));
  tl.word(0, tl_smid());
  tl.word(1, tl_gtime());
  tl.word(4, tl_clock());
  int tl_step = 0;
#endif
  if constexpr (ST > 0) {
    // Staged (gemv_kernel's ST): every k-tile of the warp (at most ST) is requested at once by
    // cp.async into the warp's ring of ST slots, one commit group per slot, before the stage (and its
    // PDL wait); the tiles are then decoded in order as their groups land. Slot layout: the words of
    // row j, lane l at word (j * 32 + l) * KB (each lane reads back its own), then the absmax bytes of
    // row j at j * 32 + l (copied 4 at a time by lanes l % 4 == 0: N even, gemv_staged_fits).
    uint32_t* ring_w = reinterpret_cast<uint32_t*>(ring + warp * ST * kStageSlotBytes<KB>);
    uint8_t* ring_s = reinterpret_cast<uint8_t*>(ring_w) + kStageWordBytes<KB>;
#pragma unroll
    for (int d = 0; d < ST; ++d) {
      if (kt + d * kGemvWarps < kt_last) {
        const uint32_t b = blk + static_cast<uint32_t>(d) * blk_step;
        uint32_t* wd = ring_w + d * (kStageSlotBytes<KB> / 4);
        uint8_t* sd = ring_s + d * kStageSlotBytes<KB>;
#pragma unroll
        for (int j = 0; j < kRowsPerLane; ++j) {
          if (!all_rows && !row_ok[j]) continue;
          const uint32_t bj = b + 16 * kBlocksPerTile * j;
          cp_async_block_words<KB>(wd + (j * 32 + lane) * KB, packed + bj * KB);
          if ((lane & 3) == 0) cp_async4(sd + j * 32 + lane, absmax + bj, 4);
        }
      }
      cp_async_commit();
    }
    stage();
    // The slice's activations (row 0; nothing past K: the pad block is skipped in step), one
    // 16-byte load per thread, after the stage's wait.
    static_assert(kGemvThreads * 8 >= ST * kGemvWarps * kTileK, "one load per thread covers the slice");
    {
      const int t = threadIdx.x;
      const int64_t e = kt_begin * kTileK + 8 * t;
      if (t < (kt_last - kt_first) * (kTileK / 8) && e < K)
        const_cast<uint4*>(a_slice)[t] = __ldg(reinterpret_cast<const uint4*>(A + e));
    }
    __syncthreads();
#pragma unroll 1
    for (int d = 0; kt < kt_last; ++d, kt += kGemvWarps) {  // warp-uniform
      cp_async_wait_dyn<ST>(ST - 1 - d);
      __syncwarp();
      const uint32_t* wd = ring_w + d * (kStageSlotBytes<KB> / 4);
      const uint8_t* sd = ring_s + d * kStageSlotBytes<KB>;
      Tile cur;
#pragma unroll
      for (int j = 0; j < kRowsPerLane; ++j) {
        load_block_words_shared<KB>(wd + (j * 32 + lane) * KB, cur.w[j]);
        cur.s[j] = sd[j * 32 + lane];
      }
      step(cur, kt);
    }
  } else {
    Tile next;
    fetch(next, kt, blk);
    stage();
    if constexpr (LU) {
      cb_r[0] = pair_s[0].x;
      cb_r[1] = pair_s[1].x;
      cb_r[2] = pair_s[4].x;
      cb_r[3] = pair_s[5].x;
    }
    fetch_a(next, kt);
    while (kt < kt_last) {  // warp-uniform
#if KBIT_GEMV_TIMELINE
      tl.stamp(tl_step, 0);
#endif
      const Tile cur = next;
#if KBIT_GEMV_TIMELINE
      tl.wait_for(gemv_tl_fold(cur));  // the tile's loads arrived
      tl.stamp(tl_step, 1);
#endif
      fetch(next, kt + kGemvWarps, blk + blk_step);
      fetch_a(next, kt + kGemvWarps);
#if KBIT_GEMV_TIMELINE
      tl.stamp(tl_step, 2);
#endif
      if constexpr (LU) {  // the warp's table for this tile (every lane, the pad block's lanes with zeros)
        lut_build(cur);
        __syncwarp();
        step_lu(cur, kt);
      } else {
        step(cur, kt);
      }
      if constexpr (LU) __syncwarp();  // every lane's lookups done before the next tile's table is written
#if KBIT_GEMV_TIMELINE
      {
        uint32_t v = 0;  // the step's sums done
        for (const auto& row : acc)
          for (float x : row) v ^= __float_as_uint(x);
        tl.wait_for(v);
        tl.stamp(tl_step++, 3);
      }
#endif
      kt += kGemvWarps;
      blk += blk_step;
    }
  }
#if KBIT_GEMV_TIMELINE
  tl.word(2, tl_gtime());
  tl.word(3, static_cast<uint32_t>(tl_step));
  tl.word(5, tl_clock());
#endif

  // Combine the two h lanes of each slot, then the 4 warps through shared memory.
#pragma unroll
  for (int m = 0; m < MV; ++m)
#pragma unroll
    for (int j = 0; j < kRowsPerLane; ++j) {
      acc[m][j] += __shfl_xor_sync(0xffffffffu, acc[m][j], 1);
      if (h == 0) red[warp][m][slot + 16 * j] = acc[m][j];
    }
  __syncthreads();
}

}  // namespace kbit::gpu::detail
