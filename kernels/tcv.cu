// Tensor-core GEMV for M = 1..16 ("tcv"): the weights are decoded in registers straight into the
// A fragments of mma.sync m16n8k16 -- no shared-memory B tile and no barrier in the main loop.
//
// Swap AB: the weight rows are the mma's M dimension and the activation rows (tokens) its N
// dimension, D[n, m] = sum_k W'[n, k] A[m, k]; one n8 tile holds 8 tokens (NT = 1 for M <= 8,
// NT = 2 for M <= 16). A warp owns 16 weight rows; one step of the warp covers 128 k = 4
// quantization blocks, and lane (g = lane / 4, q = lane % 4) decodes the whole block q of rows
// g and g + 8 (block_offsets, then one codebook read, one scale multiply and half a pack per
// weight). Eight mma per step and n8 tile consume them.
//
// K-slot permutation: an mma sums over its 16 k-slots, so the slots need not be consecutive k. In
// mma i (0..7) of a step, lane q's slots 2q, 2q+1 hold elements 4i, 4i+1 of block q and slots
// 2q+8, 2q+9 hold elements 4i+2, 4i+3 (block_offsets hands out exactly these pairs: E/O words).
// The activation fragment of token g uses the same map, so lane (g, q) reads token g's 32
// activations of block q with four 16-byte loads and passes them to the mma unchanged.
//
// CTA: 4 warps = (4 / kw) row groups of 16 x kw warps that split the CTA's K range (their sums
// meet in shared memory at the end); the grid splits K further (split-K fixup of common.cuh).
// The next step's words and absmax bytes are loaded before the current step is decoded (two steps
// of weights in flight per warp); activations are loaded at the start of their own step. The
// grouped k = 3 kernel also hints the weights two steps ahead into L2 (L2PF in tcv_tile).
// k = 2, 3 decode by register lookups instead (tcv_map.h's bt_* map): per block and row the scaled
// codebook is packed once into byte tables of 2 or 4 registers, and PRMTs on them give two weights
// in ~1.1 instructions (block_table_pairs) where the shared-memory codebook costs ~3.5 per weight.
// With TiledView::half_cb, k = 3 and 4 decode by a pair table of tcv_decode.cuh (PR; k = 3 grouped
// always, dense from 32 M weights at M <= 4): the table of adjacent element pairs (stage_adj_table,
// frag_from_adj: the B registers are the activation words as loaded) in the grouped kernel and the
// dense k = 3 one, block_nibbles' table (as tcw; its pairs need PRMT joins of activation halves) in
// the dense k = 4 one; and k = 2 at M <= 4 (the grouped kernel: <= 4 rows per expert) by the 64-byte
// table of adjacent element pairs (PR, pair2_lds: its own k-slot map).
// Numerics equal the mma kernel's: W' = cb * scale in fp32, rounded once to the activation dtype,
// fp32 accumulation -- except the pair tables: W' = rn(rn(cb) * scale), two roundings.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <type_traits>

#include <cooperative_groups.h>

#include "common.cuh"
#include "kbit/moe_sched.h"
#include "kbit/tcv_map.h"
#include "kbit/tcv_sched.h"
#include "launch.h"
#include "tcv_decode.cuh"

// Experiment knob for A/B arms: -DKBIT_TCV_FETCH_ALL=F gives every tcv kernel the step loop F
// (TcvFetch below) in place of the table's choice.
#ifndef KBIT_TCV_FETCH_ALL
#define KBIT_TCV_FETCH_ALL -1
#endif
// Experiment knob: the least resident CTAs per SM that __launch_bounds__ asks of the one-tile tcv
// kernels, dense and grouped, on the k = 2, 3 pair tables (default 6: 80 registers). 8 caps them at
// 64 registers (ptxas: no spills) for 32 warps per SM; their shared memory fits 8 CTAs. The k = 4
// table's 32 KB holds its kernels at 6 whatever their registers, and the register-table kernels
// spill at 64.
#ifndef KBIT_TCV_PAIRS_MIN_BLOCKS
#define KBIT_TCV_PAIRS_MIN_BLOCKS 6
#endif
// Experiment knob: 0 takes the grouped k = 3, 4 kernels off their pair table (tcv_uses_pairs), onto the
// register table (k = 3) and the shared-memory codebook (k = 4), with grouped_tcv_kw's rule for them.
#ifndef KBIT_GROUPED_TCV_PAIRS
#define KBIT_GROUPED_TCV_PAIRS 1
#endif
// Experiment knob: the mma after which kFetchLeanMid issues the prefetch (0..7; measured: 1).
#ifndef KBIT_TCV_FETCH_MID_AT
#define KBIT_TCV_FETCH_MID_AT 1
#endif

namespace kbit::gpu::detail {

namespace cg = cooperative_groups;

namespace {
constexpr int kTcvThreads = 32 * kTcvWarps;
static_assert(kAdjTableRows<3> * 128 <= kPairTableBytes<3> && kAdjTableRows<4> * 128 <= kPairTableBytes<4>,
              "tcv_dyn_smem reserves kPairTableBytes for the table of adjacent pairs (128 bytes per row)");
constexpr int kStepK = tcv::kStepK;  // k per warp step: 4 blocks (lib/kbit/tcv_map.h)
// kTcvWarps, tcv_rows_per_cta, tcv_steps and the launch plan: lib/kbit/tcv_sched.h.

// A hint to bring the line holding p into L2 (CCTL.E.PF2: no register, nothing waits on it).
__device__ __forceinline__ void prefetch_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

// Word wi (0..15) of four 16-byte vectors; wi is a compile-time constant after unrolling.
__device__ __forceinline__ uint32_t word_at(const uint4 (&v)[4], int wi) {
  const uint4& u = v[wi / 4];
  switch (wi % 4) {
    case 0: return u.x;
    case 1: return u.y;
    case 2: return u.z;
    default: return u.w;
  }
}

// The mma of sub-step i (0..7) for every n8 tile in the bt_* map (tcv_map.h): the B registers are
// PRMT joins of the activation words of the step (ac), A is the weight fragment of the sub-step.
template <Act ACT, int NT>
__device__ __forceinline__ void mma_bt(float (&acc)[NT][4], const uint32_t (&a)[4], const uint4 (&ac)[NT][4], int i) {
#pragma unroll
  for (int t = 0; t < NT; ++t) {
    uint32_t b[2];
#pragma unroll
    for (int r = 0; r < 2; ++r)
      b[r] = __byte_perm(word_at(ac[t], tcv::bt_b_word(i, r, 0)), word_at(ac[t], tcv::bt_b_word(i, r, 1)),
                         tcv::bt_b_sel(i, r));
    mma16816<ACT>(acc[t], a, b[0], b[1]);
  }
}

}  // namespace

// Shared memory of one CTA: the codebook and the k = 2 pair table (256-byte aligned: cb_lds and
// pair2_lds form addresses with one PRMT), the 256 decoded absmax codes, and the in-CTA K
// reduction.
struct TcvSmem {
  alignas(256) float cb[32];
  alignas(256) uint32_t pairs2[kPairTable2Words];  // PR at k = 2
  float scale[256];
  float red[3 * 16 * 16];  // (kw - 1) * (4 / kw) row groups * 16 rows * 16 tokens <= 768
};

// Where this thread sits: lane (g, q), warp = row group rg of rw, K part ks of kw.
struct TcvLane {
  int g, q, rg, ks, rw;
  int64_t n_lo, n_hi;  // its two weight rows
  __device__ __forceinline__ TcvLane(int64_t tile, int kw) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    g = lane / 4;
    q = lane % 4;
    rw = kTcvWarps / kw;
    rg = warp % rw;
    ks = warp / rw;
    n_lo = tile * tcv_rows_per_cta(kw) + 16 * rg + g;
    n_hi = n_lo + 8;
  }
};

// Accumulator r of n8 tile t holds weight row (r < 2 ? n_lo : n_hi), token 8 t + 2 q + r % 2.
// f(t, r, n, token) for the elements in range, in the warps that hold the CTA's sums (ks == 0).
template <int NT, typename F>
__device__ __forceinline__ void tcv_each(const TcvLane& L, int64_t N, int M, F&& f) {
  if (L.ks != 0) return;
#pragma unroll
  for (int t = 0; t < NT; ++t)
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int64_t n = r < 2 ? L.n_lo : L.n_hi;
      const int token = 8 * t + 2 * L.q + r % 2;
      if (n < N && token < M) f(t, r, n, token);
    }
}

// tcv_tile's step loop: kFetchWide, 64-bit step bounds and the register prefetch of the next step
// before the step's activation loads; kFetchLeanTop, 32-bit bounds and the prefetch there;
// kFetchLeanMid, 32-bit bounds and the prefetch after the step's second mma. Which one each kernel
// takes: tcv_fetch_of and grouped_fetch_of.
enum TcvFetch : int { kFetchWide = 0, kFetchLeanTop = 1, kFetchLeanMid = 2 };

// One CTA's tile: rows of `tile`, steps [sb, se) of one weight matrix (packed/absmax of it), tokens
// [0, M) of A (M <= 8 NT). On return the ks == 0 warps hold the CTA's sums in acc.
// PR (k = 3, 4, TiledView::half_cb): the pair-table decode (tcv_decode.cuh) from `pairs`, a 32 KB
// (k = 3: 16 KB) dynamic shared-memory table this function stages while the first step's weights
// are in flight; at k = 2 the 64-byte table sm.pairs2 of adjacent element pairs (pair2_lds). VEC:
// the grouped kernel. The k = 3, 4 table is that of adjacent pairs in the grouped kernel and at
// k = 3 in the dense one, block_nibbles' table in the dense k = 4 kernel (ADJ below).
template <Act ACT, int KB, int NT, bool PR, bool LATE, bool VEC, TcvFetch FETCH, class Stage>
__device__ __forceinline__ void tcv_tile(Stage&& stage, const typename ActTraits<ACT>::T* __restrict__ A, int M,
                                         const uint32_t* __restrict__ packed, const uint8_t* __restrict__ absmax,
                                         int64_t N, int64_t K, const TcvLane& L, int kw, int64_t sb, int64_t se,
                                         TcvSmem& sm, uint4* pairs, float (&acc)[NT][4]) {
  using T = typename ActTraits<ACT>::T;
  // The k = 3, 4 table of adjacent pairs (stage_adj_table, frag_from_adj) in the grouped kernel and
  // the dense k = 3 one; the dense k = 4 kernel keeps block_nibbles' table (stage_pair_table,
  // frag_from_pairs), which measured faster there (bench/results/2026-11-27-h100-tcvadj).
  constexpr bool ADJ = VEC || KB == 3;
  const int g = L.g, q = L.q, rw = L.rw, rg = L.rg, ks = L.ks;
  const int64_t n_lo = L.n_lo, n_hi = L.n_hi;
  const int64_t kblocks = k_blocks(K), ktiles = k_tiles(K);
#pragma unroll
  for (int t = 0; t < NT; ++t)
#pragma unroll
    for (int r = 0; r < 4; ++r) acc[t][r] = 0.0f;

  // Running pointers to the lane's block of the next step to fetch: step s reads k-tile
  // 2 s + q / 2, half q % 2 (block 4 s + q), rows n_lo and n_hi, and activations 32 (4 s + q).
  const bool row_ok[2] = {n_lo < N, n_hi < N};
  const int64_t first = sb + ks;
  // The step loop (TcvFetch, chosen per kernel by tcv_fetch_of): LEAN runs it on 32-bit counters
  // against per-lane limits, one compare per bound (steps are at most K / 128; check_weights caps K
  // at 2^31 - 1); FETCH_AT is the mma after which the register prefetch of the next step goes out
  // (-1: before the step's activation loads).
  constexpr bool LEAN = FETCH != kFetchWide;
  constexpr int FETCH_AT = FETCH == kFetchLeanMid ? KBIT_TCV_FETCH_MID_AT : -1;
  static_assert(FETCH_AT < tcv::kMmasPerStep, "KBIT_TCV_FETCH_MID_AT names one of the step's mmas");
  using Step = std::conditional_t<LEAN, int, int64_t>;
  const uint32_t* pw[2];
  const uint8_t* pa[2];
  block_pair_pointers<KB>(packed, absmax, N, n_lo, n_hi, q, first, row_ok, pw, pa);
  const int64_t w_step = 2 * N * kBlocksPerTile * KB * kw, a_step = 2 * N * kBlocksPerTile * kw;
  const T* px[NT];
  bool tok_ok[NT];
#pragma unroll
  for (int t = 0; t < NT; ++t) {
    tok_ok[t] = g + 8 * t < M;
    px[t] = A + static_cast<int64_t>(tok_ok[t] ? g + 8 * t : 0) * K + (4 * first + q) * kBlockSize;
  }

  // Weights are prefetched one step ahead (registers); activations are loaded at the start of their
  // own step (L1/L2-resident; the bit transposes cover their latency), which saves the registers
  // of a second activation buffer: 80 registers at NT = 1 leave room for 6 CTAs per SM.
  const int s_end = static_cast<int>(se);
  const int w_end = min(s_end, static_cast<int>((ktiles + 1 - q / 2) / 2));  // 2 s + q / 2 < ktiles
  const int a_end = static_cast<int>((kblocks + 3 - q) / 4);                // 4 s + q < kblocks
  uint32_t wn[2][KB];
  uint8_t sn[2];
  auto w_in = [&](Step s) {  // the lane's block of step s
    if constexpr (LEAN)
      return s < w_end;
    else
      return s < se && 2 * s + q / 2 < ktiles;
  };
  auto fetch = [&](Step step) {  // then advance the pointers by kw steps
    // kZero: without the zeros ptxas spills in the NT = 2 loops (bench/results/2026-11-25-h100-tcvlean).
    fetch_block_pair<KB, true>(w_in(step), row_ok, pw, pa, w_step, a_step, wn, sn);
  };
  // L2PF (grouped k = 3 on the pair table): the weights of step + 2 kw are also hinted into L2 each
  // step. ptxas puts the register prefetch of step + kw in that kernel 14-22 instructions before the
  // loop's end, too late to cover DRAM latency; the hint covers it wherever the loads land
  // (bench/results/2026-11-27-h100-tcvlean/second: grouped k = 3 1.00-1.17x on the MoE rows; the
  // other kernels, whose register prefetch sits mid-loop, gained nothing by it: geomeans 0.90-1.02x).
  // Not in the register-table kernel (!PR, a codebook that is not fp16-normal): ptxas spills in
  // its loop with the hints (bench/scripts/sass_prefetch_place.py), and it was not measured.
  constexpr bool L2PF = VEC && KB == 3 && PR;
  // The register prefetch of step + kw, then (L2PF) the hints for step + 2 kw.
  auto advance = [&](Step step) {
    fetch(step + kw);
    if constexpr (L2PF) {
      if (w_in(step + 2 * kw)) {  // pw and pa now point at step + 2 kw
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          prefetch_l2(pw[j]);
          prefetch_l2(pa[j]);
        }
      }
    }
  };
  auto after_mma = [&](Step step, int i) {  // FETCH_AT >= 0: the prefetch goes out after that mma
    if constexpr (FETCH_AT >= 0)
      if (i == FETCH_AT) advance(step);
  };

  // LATE: the first step's loads go out before `stage` fills the shared codebook and scales and
  // synchronises the CTA, so the codebook's memory round trip overlaps theirs; otherwise the
  // caller staged them before.
  Step step = static_cast<Step>(first);
  if constexpr (LATE) {
    fetch(step);
    stage();
  }
  const uint32_t cb_base = static_cast<uint32_t>(__cvta_generic_to_shared(sm.cb));
  float cbr[KB <= 3 ? 1 << KB : 1];  // k <= 3: the codebook in registers
#pragma unroll
  for (int e = 0; e < (KB <= 3 ? 1 << KB : 0); ++e) cbr[e] = sm.cb[e];
  if constexpr (!LATE) fetch(step);
  static_assert(!PR || (KB >= 2 && KB <= 4), "pair tables for k = 2, 3 and 4");
  uint32_t pair_base = 0;  // PR: this lane's word of each table row (k = 3, 4), the table (k = 2)
  if constexpr (PR) {
    if constexpr (KB == 2) {
      stage_pair_table2<ACT>(sm.cb, sm.pairs2);
      pair_base = static_cast<uint32_t>(__cvta_generic_to_shared(sm.pairs2));
    } else {
      if constexpr (ADJ)
        stage_adj_table<ACT, KB, kTcvThreads>(sm.cb, pairs);
      else
        stage_pair_table<ACT>(sm.cb, pairs);  // !ADJ: KB == 4
      pair_base = static_cast<uint32_t>(__cvta_generic_to_shared(pairs)) + 4 * (threadIdx.x % 32);
    }
    __syncthreads();
  }
  for (; LEAN ? step < s_end : step < se; step += kw) {
    uint32_t wc[2][KB];
    float sc[2];
#pragma unroll
    for (int j = 0; j < 2; ++j) {
#pragma unroll
      for (int b = 0; b < KB; ++b) wc[j][b] = wn[j][b];
      sc[j] = sm.scale[sn[j]];
    }
    if constexpr (FETCH_AT < 0) advance(step);
    uint4 ac[NT][4];
    const bool kb_ok = LEAN ? step < a_end : 4 * step + q < kblocks;
#pragma unroll
    for (int t = 0; t < NT; ++t) {
      if (kb_ok && tok_ok[t]) {
        const uint4* p = reinterpret_cast<const uint4*>(px[t]);
#pragma unroll
        for (int v = 0; v < 4; ++v) ac[t][v] = __ldg(p + v);
      } else {
#pragma unroll
        for (int v = 0; v < 4; ++v) ac[t][v] = make_uint4(0u, 0u, 0u, 0u);  // also past K: no NaN * 0
      }
      px[t] += kStepK * kw;
    }

    if constexpr (PR) {
      uint32_t Tn[2][4], sc2[2];
      sc2[0] = pack2<ACT>(sc[0], sc[0]);  // exact: E4M4 values are fp16 and bf16 numbers
      sc2[1] = pack2<ACT>(sc[1], sc[1]);
      if constexpr (KB == 2) {
        // Adjacent pairs (block_adjacent_pairs2): mma i takes the pairs at elements 8c + 2s of the
        // lane's block, c = i / 2, s = 2 (i % 2) + r / 2 for A register r (row g + 8 (r % 2)); B
        // register r of token tile t is activation word 4c + s, the same two elements.
        block_adjacent_pairs2(wc[0], Tn[0]);
        block_adjacent_pairs2(wc[1], Tn[1]);
#pragma unroll
        for (int i = 0; i < tcv::kMmasPerStep; ++i) {
          const int c = i / 2, s0 = 2 * (i % 2);
          uint32_t a[4];
#pragma unroll
          for (int r = 0; r < 4; ++r) a[r] = pair2_lds<ACT>(Tn[r & 1][s0 + r / 2], pair_base, c, sc2[r & 1]);
#pragma unroll
          for (int t = 0; t < NT; ++t) mma16816<ACT>(acc[t], a, word_at(ac[t], 4 * c + s0), word_at(ac[t], 4 * c + s0 + 1));
          after_mma(step, i);
        }
      } else {
        if constexpr (ADJ) {
          // Adjacent-pair table: A registers from frag_from_adj, whose pairs are the activation
          // words 2i and 2i + 1 of the block as loaded.
          block_adjacent_nibbles<KB>(wc[0], Tn[0]);
          block_adjacent_nibbles<KB>(wc[1], Tn[1]);
#pragma unroll
          for (int i = 0; i < tcv::kMmasPerStep; ++i) {
            uint32_t a[4];
            frag_from_adj<ACT>(Tn, sc2, pair_base, i, a);
#pragma unroll
            for (int t = 0; t < NT; ++t)
              mma16816<ACT>(acc[t], a, word_at(ac[t], tcv::b_word(i, 0)), word_at(ac[t], tcv::b_word(i, 1)));
            after_mma(step, i);
          }
        } else {
          // block_nibbles' table (dense k = 4): A registers from frag_from_pairs (the bt_* map of
          // k <= 3), B registers joined as in the byte-table path below.
          block_nibbles<KB>(wc[0], Tn[0]);
          block_nibbles<KB>(wc[1], Tn[1]);
#pragma unroll
          for (int i = 0; i < tcv::kMmasPerStep; ++i) {
            uint32_t a[4];
            frag_from_pairs<ACT>(Tn, sc2, pair_base, i, a);
            mma_bt<ACT, NT>(acc, a, ac, i);
            after_mma(step, i);
          }
        }
      }
      continue;
    }
    if constexpr (KB <= 3) {
      // Register lookups (lib/kbit/block_decode.h): the block's scaled codebook, rounded to the
      // activation type, as byte tables in 2 or 4 registers, then ~1.1 instructions per weight
      // pair; the B registers are PRMT joins of the activation words (tcv_map.h: bt_*).
      uint32_t W[2][4][4];
      table_pairs<ACT, KB>(wc, sc, cbr, W);
#pragma unroll
      for (int i = 0; i < tcv::kMmasPerStep; ++i) {
        uint32_t a[4];
#pragma unroll
        for (int r = 0; r < 4; ++r) a[r] = W[r & 1][tcv::bt_pair_r(i, r)][tcv::bt_pair_c(i)];
        mma_bt<ACT, NT>(acc, a, ac, i);
        after_mma(step, i);
      }
      continue;
    }
    uint32_t E[2][4], O[2][4];
    block_offsets<KB>(wc[0], E[0], O[0]);
    block_offsets<KB>(wc[1], E[1], O[1]);
#pragma unroll
    for (int i = 0; i < tcv::kMmasPerStep; ++i) {
      uint32_t a[4];
      frag_from_offsets<ACT>(E, O, sc, cb_base, i, a);
#pragma unroll
      for (int t = 0; t < NT; ++t)
        mma16816<ACT>(acc[t], a, word_at(ac[t], tcv::b_word(i, 0)), word_at(ac[t], tcv::b_word(i, 1)));
      after_mma(step, i);
    }
  }

  // The kw warps of a row group meet in shared memory (same accumulator layout in each).
  if (kw > 1) {
    if (ks > 0)
#pragma unroll
      for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int r = 0; r < 4; ++r)
          sm.red[((ks - 1) * rw + rg) * 256 + (g + 8 * (r / 2)) * 16 + 8 * t + 2 * q + r % 2] = acc[t][r];
    __syncthreads();
    if (ks == 0)
      for (int s = 1; s < kw; ++s)  // fixed order: deterministic
#pragma unroll
        for (int t = 0; t < NT; ++t)
#pragma unroll
          for (int r = 0; r < 4; ++r)
            acc[t][r] += sm.red[((s - 1) * rw + rg) * 256 + (g + 8 * (r / 2)) * 16 + 8 * t + 2 * q + r % 2];
  }
}

// The tile's M x rows sums of a split grid, in the CTA that arrived last: spread over all 128
// threads (one each while rows x M <= 128), each with up to 8 slices' loads in flight (slice_sum:
// the slice-order sum from 0.0f, bit for bit the plain loop's): 1.10-1.46x on tcv_pdl's split grids
// against main's loop over the ks == 0 warps (bench/results/2026-11-26-h100-tcvearly, new0). Out of
// line, since inline it moved the main loop's registers more (-slicesumland); the unsplit grids keep
// main's kernel either way (kTcvUnsplit). gemv's fixup at M >= 2 is the same loop inline (B = 16); one
// shared inline helper for both changed the PTX order, and so the SASS, of gemv's M >= 2 main loops.
template <Act ACT>
__device__ __noinline__ void tcv_fixup(const float* __restrict__ partials, int splits,
                                       typename ActTraits<ACT>::T* __restrict__ C, int M, int64_t N, int rows,
                                       int64_t row0) {
  const int64_t MN = static_cast<int64_t>(M) * N;
  for (int e = threadIdx.x; e < M * rows; e += kTcvThreads) {
    const int token = e / rows;
    const int64_t n = row0 + e % rows;
    if (n < N) {
      const float* src = partials + token * N + n;
      C[token * N + n] = ActTraits<ACT>::from_float(slice_sum<8>(splits, [&](int sl) { return __ldcg(src + sl * MN); }));
    }
  }
}

// The grid's layout and PDL placement (tcv_kernel's MODE; launch_tcv_t picks it):
// - kTcvWorkspace: the codebook and scales are staged (and, with LinearArgs::pdl, the previous work
//   waited for) first, split K goes through the workspace (tcv_fixup), the next launch may start
//   after the main loop (waiting CTAs beside a busy grid slowed it, bench/results/2026-11-25-h100-pdl3).
//   Since tcv_plan cuts the split branch's workspace grids to one wave (bench/results/2026-11-27-h100-
//   tcvwave) those launch early under PDL; the large-N branch's split grids of several waves (e.g.
//   Llama-3-70B gate_up, 896 tiles x 6 slices) still run this mode under PDL;
// - kTcvUnsplit: the same for grids without split K, compiled from the code main had before
//   tcv_fixup (its inline fixup never runs here), so that their SASS stays main's: every other
//   tail of this kernel moved the register allocation and schedule of its main loop, and the
//   unsplit multi-wave grids lost 0.90-0.97x by it (Llama-3-8B gate_up at k = 2;
//   bench/results/2026-11-26-h100-slicesumland, -tcvfixup, -tcvearly);
// - kTcvLatency (tcv_plan's cluster and one-pass plans): the first step's loads go out before the
//   codebook and scales are staged, split K meets in distributed shared memory (the splits of a row
//   tile are one cluster, grid.y), and the next launch may start once the wait returns (not at
//   kernel start: one launch waits behind this one, not a chain; bench/results/2026-11-25-h100-pdl2).
//   Without it the staging comes first (on the larger one-pass grids the reordering measured
//   0.92-1.0x, bench/results/2026-11-25-h100-cluster);
// - kTcvEarly (PDL launches of the other grids of at most one wave but unsplit grids of more than 8
//   steps per warp, tcv_early_launch): the first
//   step's loads before the stage and its wait, so that they overlap the previous kernel's tail, and
//   the next launch let in once the wait returns, as gemv's early grids; split K through the
//   workspace (bench/results/2026-11-26-h100-tcvearly: 1.05-1.43x over kTcvWorkspace on Qwen3
//   dense.down, shared_expert.down, GLM o_proj, kv_b_proj; 0.89-0.97x on multi-wave grids).
enum TcvMode : int { kTcvWorkspace = 0, kTcvUnsplit = 1, kTcvLatency = 2, kTcvEarly = 3 };

// The dense kernels' step loop (TcvFetch), as measured on the H100 with tcv_pdl over Qwen3-Coder-Next,
// GLM-4.7-Flash and Llama-3-70B at M = 1, 4, 8, 16, k = 2..5 (bench/results/2026-11-27-h100-leanall,
// arms allmid and alltop against kFetchWide everywhere; geomeans per kernel in its groups.txt): each
// kernel takes the lean arm whose rows gained (geomean >= 1.01, none below 0.98), else kFetchWide.
// The kernels no row ran keep kFetchWide.
template <int KB, int NT, bool PR, TcvMode MODE>
__host__ __device__ constexpr TcvFetch tcv_fetch_of() {
  if constexpr (KBIT_TCV_FETCH_ALL >= 0) return static_cast<TcvFetch>(KBIT_TCV_FETCH_ALL);  // an A/B arm
  constexpr bool E = MODE == kTcvEarly, L = MODE == kTcvLatency, U = MODE == kTcvUnsplit, W = MODE == kTcvWorkspace;
  if constexpr (KB == 2)  // k = 2: mid, but top in two-tile latency plans, wide in two-tile workspace ones
    return NT == 1 ? kFetchLeanMid : W ? kFetchWide : L ? kFetchLeanTop : kFetchLeanMid;
  if constexpr (KB == 3)  // one tile mid, but on the pair table not unsplit (0.93x) nor latency (no row); two tiles top
    return NT == 2 ? kFetchLeanTop : (PR && (U || L)) ? kFetchWide : kFetchLeanMid;
  if constexpr (KB == 4)  // the register table: early one-tile plans mid, two-tile latency plans top
    return PR ? kFetchWide : (NT == 1 && E) ? kFetchLeanMid : (NT == 2 && L) ? kFetchLeanTop : kFetchWide;
  // k = 5: one tile unsplit mid, workspace top; two tiles latency mid
  return NT == 1 ? (U ? kFetchLeanMid : W ? kFetchLeanTop : kFetchWide) : (L ? kFetchLeanMid : kFetchWide);
}

// The grouped kernel's step loop: the pair-table kernels (k = 2, 3, 4) and k = 2 on the register
// table lean, prefetch mid-step: grouped k = 4 1.00-1.07x on every MoE row at M = 1..16
// (bench/results/2026-11-27-h100-leanparts, arm bounds); k = 2 1.03-1.08x and k = 3 1.02-1.06x
// geomeans per M (-leanall, allmid; at k = 2, M = 8 and 16 the register-table kernels: -fetchland left
// them wide and those rows read 0.995, -fetchat's lean arms 1.03-1.09x); k = 5 lost (0.96-1.00x). The
// k = 3, 4 register-table kernels (codebooks that are not fp16-normal) ran in no bench row and stay wide.
template <int KB, bool PR>
__host__ __device__ constexpr TcvFetch grouped_fetch_of() {
  if constexpr (KBIT_TCV_FETCH_ALL >= 0) return static_cast<TcvFetch>(KBIT_TCV_FETCH_ALL);  // an A/B arm
  return PR || KB == 2 ? kFetchLeanMid : kFetchWide;
}

template <Act ACT, int KB, int NT, bool PR, TcvMode MODE>
__global__ void __launch_bounds__(kTcvThreads, NT == 1 ? (PR && KB <= 3 ? KBIT_TCV_PAIRS_MIN_BLOCKS : 6) : 5)
    tcv_kernel(const typename ActTraits<ACT>::T* __restrict__ A, typename ActTraits<ACT>::T* __restrict__ C, int M,
               TiledView w, SplitK sk, int kw) {
  using Tr = ActTraits<ACT>;
  constexpr bool LB = MODE == kTcvLatency;
  constexpr bool LATE = LB || MODE == kTcvEarly;  // the first step's loads before the stage (and its wait)
  __shared__ TcvSmem sm;
  extern __shared__ uint4 tcv_pair_table[];  // PR at k = 3, 4: tcv_dyn_smem
  auto stage = [&] {
    stage_codebook<KB>(w.codebook, sm.cb);
    stage_scales(sm.scale);
    // LinearArgs::pdl: A, C and the workspace only after the previous work in the stream.
    pdl_wait();
    if constexpr (LATE) pdl_launch_dependents();
    __syncthreads();
  };
  if constexpr (!LATE) stage();
  const TcvLane L(blockIdx.x, kw);
  const int64_t N = w.N;
  int64_t sb, se;
  slice_range(tcv_steps(w.K), sk.splits, blockIdx.y, sb, se);
  float acc[NT][4];
  constexpr TcvFetch F = tcv_fetch_of<KB, NT, PR, MODE>();
  tcv_tile<ACT, KB, NT, PR, LATE, false, F>(stage, A, M, w.packed, w.absmax, N, w.K, L, kw, sb, se, sm, tcv_pair_table, acc);
  if constexpr (!LATE) pdl_launch_dependents();

  if (sk.splits == 1) {
    tcv_each<NT>(L, N, M, [&](int t, int r, int64_t n, int token) { C[token * N + n] = Tr::from_float(acc[t][r]); });
    return;
  }
  if constexpr (LB) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap();  // no clusters before sm_90; tcv_plan never makes a cluster plan there
#else
    // The K slices of this row tile are the CTAs of one cluster (grid.y = cluster size). Each
    // publishes the sums of its ks == 0 warps in sm.red (element e = ((warp * 32 + lane) * NT + t)
    // * 4 + r; kTcvClusterFloats bounds it), then CTA `rank` adds up its share of the elements over all slices
    // through distributed shared memory, in slice order (the workspace path's sum, bit for bit).
    // The second barrier keeps every CTA's sm.red alive until all reads are done.
    cg::cluster_group cluster = cg::this_cluster();
    __syncthreads();  // the in-CTA reduction of tcv_tile has read sm.red
    if (L.ks == 0)
#pragma unroll
      for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int r = 0; r < 4; ++r) sm.red[(threadIdx.x * NT + t) * 4 + r] = acc[t][r];
    cluster.sync();
    const int elems = L.rw * 32 * NT * 4;
    const int rank = static_cast<int>(cluster.block_rank());
    const int lo = rank * elems / sk.splits, hi = (rank + 1) * elems / sk.splits;
    for (int e = lo + static_cast<int>(threadIdx.x); e < hi; e += kTcvThreads) {
      const int thread = e / (4 * NT), t = (e / 4) % NT, r = e % 4;
      const int rg = thread / 32, lane = thread % 32;
      const int64_t n = static_cast<int64_t>(blockIdx.x) * tcv_rows_per_cta(kw) + 16 * rg + lane / 4 + (r < 2 ? 0 : 8);
      const int token = 8 * t + 2 * (lane % 4) + r % 2;
      if (n >= N || token >= M) continue;
      float s = 0.0f;
      for (int sl = 0; sl < sk.splits; ++sl) s += cluster.map_shared_rank(sm.red, sl)[e];
      C[token * N + n] = Tr::from_float(s);
    }
    cluster.sync();
    return;
#endif
  }
  const int64_t MN = static_cast<int64_t>(M) * N;
  tcv_each<NT>(L, N, M, [&](int t, int r, int64_t n, int token) {
    sk.partials[blockIdx.y * MN + token * N + n] = acc[t][r];
  });
  if (!splitk_arrive(sk, blockIdx.x)) return;
  if constexpr (MODE == kTcvUnsplit) {  // main's fixup before tcv_fixup (never reached: no split K)
    tcv_each<NT>(L, N, M, [&](int, int, int64_t n, int token) {
      float s = 0.0f;
      for (int sl = 0; sl < sk.splits; ++sl) s += __ldcg(sk.partials + sl * MN + token * N + n);
      C[token * N + n] = Tr::from_float(s);
    });
  } else {
    const int rows = tcv_rows_per_cta(kw);
    tcv_fixup<ACT>(sk.partials, sk.splits, C, M, N, rows, static_cast<int64_t>(blockIdx.x) * rows);
  }
}

// Grouped: one CTA per work item (expert, up to 8 NT consecutive rows of it) and row tile. With
// `tiles` > 0 the grid is 1D and item-major, blockIdx.x = item * tiles + row tile (an item's row tiles
// launch together; the items past the routing's real count, which moe_max_items allows for and which
// exit after the offsets scan, launch last); with 0 blockIdx.x is the item, blockIdx.y the row tile
// (grouped_tcv_item_major_rule). All of K per CTA (kw warps split it); no split-K.
template <Act ACT, int KB, int NT, bool PR>
__global__ void __launch_bounds__(kTcvThreads, NT == 1 ? (PR && KB <= 3 ? KBIT_TCV_PAIRS_MIN_BLOCKS : 6) : 5)
    grouped_tcv_kernel(const typename ActTraits<ACT>::T* __restrict__ A, typename ActTraits<ACT>::T* __restrict__ C,
                       const int32_t* offsets, TiledView w, int kw, int tiles) {
  using Tr = ActTraits<ACT>;
  __shared__ TcvSmem sm;
  extern __shared__ uint4 tcv_pair_table[];  // PR at k = 3, 4: tcv_dyn_smem
  // The codebook is loaded before the wait -- it is part of the weights, which the work before
  // does not write (MoeArgs::pdl) -- and stored at the offsets scan's first barrier, so its round
  // trip overlaps the scan's; the scales are decoded meanwhile
  // (bench/results/2026-11-25-h100-moeprologue).
  const int t = threadIdx.x;
  float cb_v = 0.0f;
  if (t < (1 << KB)) cb_v = w.codebook[t];
  stage_scales(sm.scale);
  pdl_wait();  // MoeArgs::pdl: the offsets, A and C only after the previous work in the stream
  const int bid = static_cast<int>(blockIdx.x);
  const int item_id = tiles > 0 ? bid / tiles : bid, row_tile = tiles > 0 ? bid % tiles : static_cast<int>(blockIdx.y);
  const WorkItem item = find_work_item<kTcvThreads>(offsets, static_cast<int>(w.E), 8 * NT, item_id, [&] {
    if (t < (1 << KB)) sm.cb[t] = cb_v;
  });
  if (item.expert < 0) return;
  const TcvLane L(row_tile, kw);
  const int64_t N = w.N;
  float acc[NT][4];
  constexpr TcvFetch F = grouped_fetch_of<KB, PR>();
  tcv_tile<ACT, KB, NT, PR, false, true, F>([] {}, A + static_cast<int64_t>(item.row0) * w.K, item.rows,
                            w.packed + item.expert * w.expert_words(), w.absmax + item.expert * w.expert_absmax(), N,
                            w.K, L, kw, 0, tcv_steps(w.K), sm, tcv_pair_table, acc);
  pdl_launch_dependents();  // after the main loop, as the busy dense plans
  typename Tr::T* Cp = C + static_cast<int64_t>(item.row0) * N;
  tcv_each<NT>(L, N, item.rows,
               [&](int t, int r, int64_t n, int token) { Cp[token * N + n] = Tr::from_float(acc[t][r]); });
}

// ---------------------------------------------------------------------------------------------
namespace {

// tcv_force_pairs (tests); its value at start is 1 where KBIT_TCV_PAIRS=1 is in the environment (A/B runs in one
// binary: the dense k = 3, 4 kernels on their pair table below kTcvPairsMinWeights too, bench/scripts/
// h200_s47_tcvpairs.sh), else 0. Dispatch reads tcv_uses_pairs in its M = 1, 2 rules (kernels/api.cu), so the knob
// moves those rows too, except k = 3 at M = 2 below 32 M weights, which that rule bounds itself.
std::atomic<int> g_tcv_force_pairs{env_int("KBIT_TCV_PAIRS", 0) == 1 ? 1 : 0};
// The dense k = 3 table's weight bound: kTcvPairs3MinWeights, or with KBIT_TCV_PAIRS3=32 in the environment the
// 32 M of the rule before (A/B runs in one binary).
const double g_tcv_pairs3_min = env_int("KBIT_TCV_PAIRS3", 0) == 32 ? kTcvPairsMinWeights : kTcvPairs3MinWeights;
// The dense k = 3 table's largest M (tcv_uses_pairs): kTcvPairs3MaxM, from kTcvPairsMinWeights kTcvPairs3MaxMBig; or
// KBIT_TCV_PAIRS3_MAXM (at most 8, one n8 tile) in the environment at every size, for A/B runs (4: the rule before
// the forty-seventh session).
const int g_tcv_pairs3_maxm = std::clamp(env_int("KBIT_TCV_PAIRS3_MAXM", 0), 0, 8);
// The dense k = 2 table's largest M: kTcvPairs2MaxM, or KBIT_TCV_PAIRS2_MAXM (at most 8, one n8 tile) in the
// environment, for A/B runs (bench/scripts/h200_s48_k2m8.sh). The grouped kernel keeps kTcvPairs2MaxM.
const int g_tcv_pairs2_maxm = std::clamp(env_int("KBIT_TCV_PAIRS2_MAXM", 0), 0, 8);

// The dense kernel's choice of decode at this M (launch.h: tcv_uses_pairs).
bool tcv_pairs(const TiledView& w, int64_t M) { return tcv_uses_pairs(w, false, M); }
// (k = 3 reserves the 16 KB of kPairTableBytes<3>, the plans' occupancy as measured; its table of
// adjacent pairs fills the first 8 KB.)
constexpr int tcv_dyn_smem(int kb, bool pr) {
  return pr && kb == 4 ? kPairTableBytes<4> : pr && kb == 3 ? kPairTableBytes<3> : 0;
}

template <Act ACT, int KB, int NT, bool PR>
int tcv_blocks_per_sm() {
  static int cache[64] = {};
  return cached_blocks_per_sm(tcv_kernel<ACT, KB, NT, PR, kTcvUnsplit>, kTcvThreads, cache, tcv_dyn_smem(KB, PR));
}

// The grouped kernel's slots per SM: the dense kernel's (the same occupancy at the default bounds),
// or, under the experiment knob KBIT_TCV_PAIRS_MIN_BLOCKS, the grouped kernel's own.
template <Act ACT, int KB, int NT, bool PR>
int grouped_blocks_per_sm() {
#if KBIT_TCV_PAIRS_MIN_BLOCKS != 6
  static int cache[64] = {};
  return cached_blocks_per_sm(grouped_tcv_kernel<ACT, KB, NT, PR>, kTcvThreads, cache, tcv_dyn_smem(KB, PR));
#else
  return tcv_blocks_per_sm<ACT, KB, NT, PR>();
#endif
}

template <Act ACT, int KB, bool PR>
int blocks_per_sm_nt(int64_t M) {
  if constexpr (PR && KB <= 3)  // the dense k = 2, 3 tables serve M <= 4 only: one n8 tile
    return tcv_blocks_per_sm<ACT, KB, 1, PR>();
  else
    return M <= 8 ? tcv_blocks_per_sm<ACT, KB, 1, PR>() : tcv_blocks_per_sm<ACT, KB, 2, PR>();
}
// with_bits with the decode as a second template argument: f(k, pr) with pr = std::true_type where
// `pairs` (tcv_uses_pairs, which holds at k = 2..4 only), else std::false_type.
template <typename R, typename F>
R with_decode(int bits, bool pairs, R otherwise, F&& f) {
  return with_bits(bits, otherwise, [&](auto kb) -> R {
    if constexpr (decltype(kb)::value <= 4)
      if (pairs) return f(kb, std::true_type{});
    return f(kb, std::false_type{});
  });
}

template <Act ACT>
int blocks_per_sm_k(int64_t M, const TiledView& w) {
  const int k = w.bits >= 2 && w.bits <= 4 ? w.bits : 5;  // as a workspace query may see any bits
  return with_decode(k, tcv_pairs(w, M), 1, [&](auto kb, auto pr) {
    return blocks_per_sm_nt<ACT, decltype(kb)::value, decltype(pr)::value>(M);
  });
}

// The launch shape (lib/kbit/tcv_sched.h) for this GPU's resident slots of the kernel that runs.
TcvPlan tcv_plan(int64_t M, const TiledView& w, Act act) {
  const int per_sm = act == Act::f16 ? blocks_per_sm_k<Act::f16>(M, w) : blocks_per_sm_k<Act::bf16>(M, w);
  return tcv_plan_for(M, w.N, w.K, w.bits, static_cast<int64_t>(per_sm) * device_sm_count(), device_sm_count(),
                      device_has_clusters());
}

}  // namespace

TcvPlan tcv_plan_of(int64_t M, const TiledView& w, Act act) { return tcv_plan(M, w, act); }

namespace {

template <Act ACT, int KB, int NT, bool PR, TcvMode MODE>
cudaError_t launch_tcv_mode(const LinearArgs& a, const TcvPlan& p, SplitK sk) {
  using T = typename ActTraits<ACT>::T;
  const dim3 grid(static_cast<unsigned>(p.tiles), static_cast<unsigned>(p.splits));
  return launch_ex(tcv_kernel<ACT, KB, NT, PR, MODE>, grid, kTcvThreads, tcv_dyn_smem(KB, PR), a.stream,
                   p.cluster ? grid.y : 1, a.pdl, static_cast<const T*>(a.A), static_cast<T*>(a.C),
                   static_cast<int>(a.M), a.w, sk, p.kw);
}

template <Act ACT, int KB, int NT, bool PR>
cudaError_t launch_tcv_t(const LinearArgs& a, const TcvPlan& p, SplitK sk) {
  if (p.cluster || p.short_k) return launch_tcv_mode<ACT, KB, NT, PR, kTcvLatency>(a, p, sk);
  if (a.pdl && tcv_early_launch(p)) return launch_tcv_mode<ACT, KB, NT, PR, kTcvEarly>(a, p, sk);
  if (p.splits > 1) return launch_tcv_mode<ACT, KB, NT, PR, kTcvWorkspace>(a, p, sk);
  return launch_tcv_mode<ACT, KB, NT, PR, kTcvUnsplit>(a, p, sk);
}

template <Act ACT, int KB, bool PR>
cudaError_t launch_tcv_nt(const LinearArgs& a, const TcvPlan& p, SplitK sk) {
  if constexpr (PR && KB <= 3)  // M <= kTcvPairs2MaxM, kTcvPairs3MaxM (tcv_uses_pairs): one n8 tile
    return a.M <= 8 ? launch_tcv_t<ACT, KB, 1, PR>(a, p, sk) : cudaErrorInvalidValue;
  else
    return a.M <= 8 ? launch_tcv_t<ACT, KB, 1, PR>(a, p, sk) : launch_tcv_t<ACT, KB, 2, PR>(a, p, sk);
}

template <Act ACT>
cudaError_t launch_tcv_k(const LinearArgs& a, const TcvPlan& p, SplitK sk) {
  return with_decode(a.w.bits, tcv_pairs(a.w, a.M), cudaErrorInvalidValue, [&](auto kb, auto pr) {
    return launch_tcv_nt<ACT, decltype(kb)::value, decltype(pr)::value>(a, p, sk);
  });
}

// grouped_tcv's 1D item-major grid where grouped_tcv_item_major_rule (lib/kbit/moe_sched.h) says;
// KBIT_GTCV_ITEM_MAJOR=0 in the environment keeps the 2D grid (items x row tiles) everywhere, =2 takes
// item-major everywhere, for A/B runs in one binary.
bool grouped_tcv_item_major(int64_t total_rows) {
  static const int mode = env_int("KBIT_GTCV_ITEM_MAJOR", 1);
  return mode == 0 ? false : mode == 2 ? true : grouped_tcv_item_major_rule(total_rows);
}

template <Act ACT, int KB, int NT, bool PR>
cudaError_t launch_grouped_t(const MoeArgs& a, int kw) {
  using T = typename ActTraits<ACT>::T;
  const int64_t items = moe_max_items(a.w.E, a.total_rows, 8 * NT);
  if (items == 0) return cudaSuccess;
  const int64_t rows = tcv_rows_per_cta(kw), tiles = (a.w.N + rows - 1) / rows;
  const bool item_major = grouped_tcv_item_major(a.total_rows) && items * tiles <= 0x7fffffff;
  const dim3 grid = item_major ? dim3(static_cast<unsigned>(items * tiles))
                               : dim3(static_cast<unsigned>(items), static_cast<unsigned>(tiles));
  return launch_ex(grouped_tcv_kernel<ACT, KB, NT, PR>, grid, kTcvThreads, tcv_dyn_smem(KB, PR), a.stream, 1, a.pdl,
                   static_cast<const T*>(a.A), static_cast<T*>(a.C), a.expert_offsets, a.w, kw,
                   item_major ? static_cast<int>(tiles) : 0);
}

// Grouped: rows per work item (8, or 16 in two n8 tiles) from the rows per expert grouped_tcv_rows
// gives (grouped_tcv_two_tiles); K split inside the CTA by grouped_tcv_kw (lib/kbit/tcv_sched.h).
// The k = 2 pair table serves up to kTcvPairs2MaxM mean rows per expert (tcv_uses_pairs): one n8 tile.
// Experiment knob for A/B runs in one binary: KBIT_GTCV_NT_HINT=1 in the environment sizes grouped_tcv's items
// (NT = 2 above 8 rows) and picks its k = 2 decode (the pair table to kTcvPairs2MaxM rows) by
// MoeArgs::max_rows_per_expert_hint, as before the forty-fifth session, in place of the mean rows per active
// expert (grouped_tcv_rows, grouped_tcv_two_tiles in lib/kbit/moe_sched.h).
bool grouped_tcv_nt_by_hint() {
  static const bool on = env_knob("KBIT_GTCV_NT_HINT", false);
  return on;
}
// Experiment knob for A/B runs in one binary: KBIT_GTCV_KW=1|2|4 in the environment sets grouped_tcv's in-CTA K
// split (at most the steps allow) in place of grouped_tcv_kw's.
int grouped_tcv_env_kw(int64_t steps) {
  static const int v = env_int("KBIT_GTCV_KW", 0);
  int kw = v == 1 || v == 2 || v == 4 ? v : 0;
  while (kw > 1 && kw > steps) kw /= 2;
  return kw;
}
template <Act ACT, int KB, bool PR>
cudaError_t launch_grouped_nt(const MoeArgs& a, int64_t rows_per_expert) {
  auto run = [&](auto nt) {
    constexpr int NT = decltype(nt)::value;
    const int64_t slots = static_cast<int64_t>(grouped_blocks_per_sm<ACT, KB, NT, PR>()) * device_sm_count();
    const int64_t items = std::max<int64_t>(1, std::min<int64_t>(a.w.E, a.total_rows));  // expected active
    const int64_t steps = tcv_steps(a.w.K);
    const int env_kw = grouped_tcv_env_kw(steps);
    return launch_grouped_t<ACT, KB, NT, PR>(a, env_kw != 0 ? env_kw : grouped_tcv_kw(items, a.w.N, steps, slots, PR));
  };
  if constexpr (PR && KB == 2)  // <= kTcvPairs2MaxM rows per expert (grouped_tcv_rows); an expert of more splits
    return run(std::integral_constant<int, 1>{});
  else
    return grouped_tcv_two_tiles(rows_per_expert) ? run(std::integral_constant<int, 2>{})
                                                  : run(std::integral_constant<int, 1>{});
}

template <Act ACT>
cudaError_t launch_grouped_k(const MoeArgs& a) {
  const int64_t rows = grouped_tcv_rows(a.w.E, a.total_rows, a.max_rows_per_expert_hint);
  return with_decode(a.w.bits, tcv_uses_pairs(a.w, true, rows), cudaErrorInvalidValue, [&](auto kb, auto pr) {
    return launch_grouped_nt<ACT, decltype(kb)::value, decltype(pr)::value>(a, rows);
  });
}

}  // namespace

static_assert(kTcvPairs2MaxM <= 8 && kTcvPairs3MaxM <= 8 && kTcvPairs3MaxMBig <= 8,
              "the dense k = 2, 3 and grouped k = 2 tables are instantiated for one n8 tile only (launch_tcv_nt, "
              "launch_grouped_nt)");
bool tcv_uses_pairs(const TiledView& w, bool grouped, int64_t M) {
  if (w.bits == 2) return w.half_cb && M <= (!grouped && g_tcv_pairs2_maxm > 0 ? g_tcv_pairs2_maxm : kTcvPairs2MaxM);
  if ((w.bits != 3 && w.bits != 4) || !w.half_cb) return false;
  if (grouped) return KBIT_GROUPED_TCV_PAIRS != 0;
  const double weights = static_cast<double>(w.N) * static_cast<double>(w.K);
  const int64_t max_m3 = g_tcv_pairs3_maxm > 0                ? g_tcv_pairs3_maxm
                         : weights >= kTcvPairsMinWeights     ? kTcvPairs3MaxMBig
                                                              : kTcvPairs3MaxM;
  if (w.bits == 3 && M > max_m3) return false;
  if (g_tcv_force_pairs.load(std::memory_order_relaxed) == 1) return true;
  return weights >= (w.bits == 3 ? g_tcv_pairs3_min : kTcvPairsMinWeights);
}
void tcv_force_pairs(int mode) { g_tcv_force_pairs.store(mode, std::memory_order_relaxed); }

int64_t grouped_tcv_rows(int64_t E, int64_t total_rows, int max_rows_hint) {
  return grouped_tcv_nt_by_hint() ? moe_rows_hint(E, total_rows, max_rows_hint) : moe_mean_rows(E, total_rows);
}

cudaError_t launch_grouped_tcv(const MoeArgs& a) {
  return a.act == Act::f16 ? launch_grouped_k<Act::f16>(a) : launch_grouped_k<Act::bf16>(a);
}

size_t tcv_workspace_bytes(int64_t M, const TiledView& w, Act act) {
  const TcvPlan p = tcv_plan(M, w, act);
  if (p.splits == 1) return 0;
  return splitk_counter_bytes(p.tiles) + static_cast<size_t>(p.splits) * M * w.N * sizeof(float);
}

cudaError_t launch_tcv(const LinearArgs& a) {
  const TcvPlan p = tcv_plan(a.M, a.w, a.act);
  SplitK sk;
  sk.splits = p.splits;
  if (p.splits > 1) {
    sk.counters = static_cast<uint32_t*>(a.workspace);
    sk.partials = reinterpret_cast<float*>(static_cast<char*>(a.workspace) + splitk_counter_bytes(p.tiles));
  }
  return a.act == Act::f16 ? launch_tcv_k<Act::f16>(a, p, sk) : launch_tcv_k<Act::bf16>(a, p, sk);
}

}  // namespace kbit::gpu::detail
