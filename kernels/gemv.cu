// Scalar GEMV for M = 1..4 (seed 003's scalar kernel, reshaped for the tiled layout) and its
// grouped MoE form.
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
#include <cooperative_groups.h>

#include <atomic>
#include <cstdlib>
#include <type_traits>

#include "common.cuh"
#include "kbit/gemv_sched.h"
#include "launch.h"
#include "timeline.cuh"

namespace kbit::gpu::detail {

namespace cg = cooperative_groups;

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

// KBIT_GEMV_LUT (default 1; the environment's value overrides it, KBIT_GEMV_LUT=0 restores the codebook pairs and
// their dispatch): at M = 1, k = 2 the register-pipeline launches look up *activation* sums instead of codebook pairs. Before each step a warp writes,
// for every adjacent element pair (2i, 2i + 1) of its k-tile, the 16 sums cb[lo(v)] x[2i] + cb[hi(v)] x[2i + 1]
// (v: block_adjacent_pairs2's code; 2 KB per warp, gemv_tile's LU); the step then adds one 4-byte entry per pair of
// weights: PRMT (address) + LDS.32 + FADD, against PRMT + LDS.64 + 2 FFMA and the activations' conversions, and
// one shared-memory wavefront per warp-load instead of two (block h's tables in banks 0-15, h = 1's in 16-31).
#ifndef KBIT_GEMV_LUT
#define KBIT_GEMV_LUT 1
#endif
// A knob's value: the environment's variable of that name where it is set and not empty, else the build's.
bool env_knob(const char* name, bool build) {
  const char* e = std::getenv(name);
  return e != nullptr && *e != '\0' ? std::atoi(e) != 0 : build;
}
std::atomic<int> g_gemv_force_lut{0};        // gemv_force_lut (tests)
std::atomic<int64_t> g_gemv_lut_launches{0};  // gemv_lut_launches (tests)
bool lut_on() {  // gemv_lut_enabled
  const int force = g_gemv_force_lut.load(std::memory_order_relaxed);
  if (force != 0) return force == 1;
  static const bool on = env_knob("KBIT_GEMV_LUT", KBIT_GEMV_LUT != 0);
  return on;
}
// KBIT_GEMV_BALANCE (default 1; the environment's value overrides it): a one-wave early PDL grid of
// the register pipeline at M = 1 (kGemvEarly) asks for enough unused dynamic shared memory that no SM can hold more
// than ceil(CTAs / SMs) of its CTAs (balance_pad), so the CTAs spread evenly instead of stacking up to the
// occupancy limit on the SMs the previous kernel frees first.
#ifndef KBIT_GEMV_BALANCE
#define KBIT_GEMV_BALANCE 1
#endif
// Padded only where at least this many CTAs per SM remain: grids of 1-2 per SM lost 0.88-0.98x padded (Qwen3
// shared_expert.gate_up, 128 CTAs; GLM q_b_proj, 240), though Llama-3-8B k/v_proj (256) won 1.03-1.07x
// (bench/results/2026-11-28-h200-balance3).
constexpr int64_t kGemvBalanceMinNeed = 3;
bool balance_on() {
  static const bool on = env_knob("KBIT_GEMV_BALANCE", KBIT_GEMV_BALANCE != 0);
  return on;
}
// The dynamic shared memory of an early grid of `ctas` CTAs on `slots` resident CTAs (balance_on): the pad that holds
// `kern` to need = ceil(CTAs / SMs) CTAs per SM, or 0. Worked out once per device and need into the caller's `cache`
// of that kernel (0: not yet, -1: no pad), as cached_blocks_per_sm does: whole 128-byte allocation units per CTA
// (gemv_balance_pad), the kernel opted in to the largest pad it can be given (kGemvBalanceMinNeed CTAs: one value,
// so launches with different pads never lower the limit under each other), the occupancy checked to be `need`.
template <class Kern>
size_t balance_pad(Kern kern, int64_t ctas, int64_t slots, int (&cache)[64][16]) {
  if (!balance_on() || ctas > slots) return 0;
  const int64_t sms = device_sm_count();
  const int64_t per_sm = slots / sms, need = (ctas + sms - 1) / sms;
  int dev = 0;
  if (need >= per_sm || need < kGemvBalanceMinNeed || need >= 16 || cudaGetDevice(&dev) != cudaSuccess || dev < 0 ||
      dev >= 64)
    return 0;
  int& slot = cache[dev][need];
  if (slot == 0) {
    int smem_sm = 0, reserved = 0, n = 0;
    cudaFuncAttributes fa{};
    int64_t want = 0;
    if (cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev) == cudaSuccess &&
        cudaFuncGetAttributes(&fa, kern) == cudaSuccess) {
      const int64_t stat = static_cast<int64_t>(fa.sharedSizeBytes);
      const int64_t most = gemv_balance_pad(smem_sm, kGemvBalanceMinNeed, stat, reserved);
      want = gemv_balance_pad(smem_sm, need, stat, reserved);
      const bool ok = want > 0 && most >= want &&
                      (most <= fa.maxDynamicSharedSizeBytes ||
                       cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(most)) ==
                           cudaSuccess) &&
                      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kern, kGemvThreads, static_cast<size_t>(want)) ==
                          cudaSuccess &&
                      n == need;
      if (!ok) want = 0;
    }
    cudaGetLastError();  // a failed query or opt-in only means no pad
    slot = want > 0 ? static_cast<int>(want) : -1;
  }
  return slot > 0 ? static_cast<size_t>(slot) : 0;
}
// Whether a launch on w takes the tables: from kGemvLutMinWeights unless forced (gemv_force_lut).
bool lut_for(const TiledView& w) {
  if (g_gemv_force_lut.load(std::memory_order_relaxed) == 1) return true;
  return lut_on() && static_cast<double>(w.N) * static_cast<double>(w.K) >= kGemvLutMinWeights;
}
// The warp's table: pair p (0..15) of block h at byte p * 128 + h * 64, entry v at byte 4 v ^ 16 (p % 4) (the
// swizzle keeps the 16-byte stores of the 8 lanes of a quarter-warp in distinct bank groups).
constexpr int kLutWarpFloats = 512;

std::atomic<int> g_gemv_force_pairs{0};        // gemv_force_pairs (tests)
std::atomic<int64_t> g_gemv_pair_launches{0};  // gemv_pair_launches (tests)
std::atomic<int> g_gemv_force_staged{0};       // gemv_force_staged (tests)
std::atomic<int64_t> g_gemv_staged_launches{0};  // gemv_staged_launches (tests)
std::atomic<int> g_gemv_staged_seen{0};          // gemv_staged_seen (tests)

// Fill the pair table from the stored codebook (128 threads); caller synchronises.
template <int KB>
__device__ __forceinline__ void stage_pair_table(const float* __restrict__ cb, float2* ptab) {
  static_assert(KB == 3 || KB == 4, "pair tables for k = 3 and 4");
  static_assert(kGemvThreads == 128 && kPairTable<KB> % kGemvThreads == 0, "one entry per thread and pass");
  // Thread t writes index i * 128 + t: entry e = 8 i + t / 16 (lo = e % 16 = 8 (i % 2) + t / 16,
  // hi = e / 16 = i / 2), copy t % 16. At k = 3 lo >= 8 is a pair no block has: cb[lo % 8] fills it.
  constexpr int kMask = (1 << KB) - 1;
  const int t = threadIdx.x;
  float hi[1 << KB];
#pragma unroll
  for (int v = 0; v < (1 << KB); ++v) hi[v] = __ldg(cb + v);
  const float lo0 = __ldg(cb + (t / 16 & kMask)), lo1 = __ldg(cb + ((8 + t / 16) & kMask));
#pragma unroll
  for (int i = 0; i < kPairTable<KB> / kGemvThreads; ++i)
    ptab[i * kGemvThreads + t] = make_float2(i % 2 ? lo1 : lo0, hi[i / 2]);
}

// k = 2 (PT): the 16 float2 pairs of block_adjacent_pairs2's codes, entry v = (cb[adjacent_pair_lo(v)],
// cb[adjacent_pair_hi(v)]); 128 bytes, so every half-warp's 8-byte loads are conflict-free without
// copies. Caller synchronises.
__device__ __forceinline__ void stage_adjacent_pairs2(const float* __restrict__ cb, float2* ptab) {
  const int v = threadIdx.x;
  if (v < 16) ptab[v] = make_float2(__ldg(cb + adjacent_pair_lo(v)), __ldg(cb + adjacent_pair_hi(v)));
}

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

// The grid's layout and PDL placement (gemv_kernel's MODE):
// - kGemvWorkspace: the codebook is staged (and, with LinearArgs::pdl, the previous work waited for)
//   first (except in the staged form, ST > 0, which requests its weights before the stage in every
//   mode), split K goes through the workspace, the next launch may start after the main loop;
// - kGemvCluster (the small grids of launch_dense): the first weight loads go out before the
//   codebook is staged, the K slices (grid.y, one cluster) meet in distributed shared memory, and
//   the next launch may start once the wait returns. Without it the codebook is staged first (on the
//   larger grids the reordering measured 0.8-1.0x, bench/results/2026-11-25-h100-cluster);
// - kGemvEarly (PDL launches of the workspace grids gemv_early_launch picks, M <= 2): the first
//   weight loads before the wait, so they overlap the previous kernel's tail, and the next launch
//   let in once the wait returns.
enum GemvMode : int { kGemvWorkspace = 0, kGemvCluster = 1, kGemvEarly = 2 };

// PT: the pair-table decode of k = 3, 4 (stage_pair_table) and of k = 2 at M = 1 (adjacent pairs,
// stage_adjacent_pairs2); launch_gemv picks it (gemv_uses_pairs).
// ST > 0 (M = 1, not on cluster grids): the staged form, every k-tile of a warp requested at once
// through shared memory (gemv_tile; kStageBytes of dynamic shared memory), always before the stage;
// MODE then places only the PDL trigger.
// LU (KBIT_GEMV_LUT): k = 2 at M = 1 by activation-sum tables (gemv_tile's LU).
template <Act ACT, int KB, int MV, GemvMode MODE, bool PT, int ST = 0, bool LU = false>
__global__ void __launch_bounds__(kGemvThreads, kGemvMinBlocks<KB, MV, false>) gemv_kernel(const typename ActTraits<ACT>::T* __restrict__ A,
                                                           typename ActTraits<ACT>::T* __restrict__ C, int M,
                                                           TiledView w, SplitK sk) {
  using Tr = ActTraits<ACT>;
  constexpr bool CL = MODE == kGemvCluster;
  static_assert(ST == 0 || (MV == 1 && !CL), "staged at M = 1 on workspace grids");
  constexpr bool LATE = MODE != kGemvWorkspace || ST > 0;  // the first weight loads before the stage (and its wait)
  constexpr bool EARLY_TRIGGER = MODE != kGemvWorkspace;   // the next launch let in once the wait returns
  extern __shared__ __align__(16) unsigned char gemv_ring[];
  __shared__ float cb_s[PT ? 1 : 1 << KB];
  __shared__ alignas(256) float2 pair_s[PT ? kPairTable<KB> : kUsePairs<KB, MV> ? 16 : 1];
  __shared__ float red[kGemvWarps][MV][kGemvRows];
  __shared__ alignas(256) float lut_s[LU ? kGemvWarps * kLutWarpFloats : 1];
  auto stage = [&] {
    if constexpr (PT && KB == 2)
      stage_adjacent_pairs2(w.codebook, pair_s);
    else if constexpr (PT)
      stage_pair_table<KB>(w.codebook, pair_s);
    else
      stage_codebook<KB>(w.codebook, cb_s);
    if constexpr (kUsePairs<KB, MV> && !PT) stage_pairs2(w.codebook, pair_s);
    // LinearArgs::pdl: A, C and the workspace only after the previous work in the stream. The
    // EARLY_TRIGGER grids (CL, kGemvEarly) then let the next launch start (not at kernel start: one launch
    // waits behind this one, not a chain; bench/results/2026-11-25-h100-pdl2); main's workspace grids
    // only after their main loop (below): waiting CTAs beside a busy grid slowed it (-pdl3), and
    // gemv_early_launch keeps those where the early launch lost (-gemvearly).
    pdl_wait();
    if constexpr (EARLY_TRIGGER) pdl_launch_dependents();
    __syncthreads();
  };
  if constexpr (!LATE) stage();

  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * kGemvRows;
  int64_t kt_begin, kt_end;
  slice_range(k_tiles(w.K), sk.splits, blockIdx.y, kt_begin, kt_end);
  auto late_stage = [&] {
    if constexpr (LATE) stage();
  };
  gemv_tile<ACT, KB, MV, PT, MV == 1 && !CL && ST == 0 && !LU, ST, LU>(late_stage, A, w.packed, w.absmax, cb_s, pair_s,
                                                                       w.N, w.K, M, n0, kt_begin, kt_end, red,
                                                                       gemv_ring, lut_s);
  if constexpr (!EARLY_TRIGGER) pdl_launch_dependents();

  // Thread t < 64 owns output row n0 + t for every activation row.
  const int t = threadIdx.x;
  const int64_t n = n0 + t;
  float out[MV];
  if (t < kGemvRows) {
#pragma unroll
    for (int m = 0; m < MV; ++m) out[m] = red[0][m][t] + red[1][m][t] + red[2][m][t] + red[3][m][t];
  }
  if (sk.splits == 1) {
    if (t < kGemvRows && n < w.N)
#pragma unroll
      for (int m = 0; m < MV; ++m)
        if (m < M) C[m * w.N + n] = Tr::from_float(out[m]);
    return;
  }
  if constexpr (CL) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap();  // no clusters before sm_90; the host never launches CL there (device_has_clusters)
#else
    // The K slices of this row tile are the CTAs of one cluster (grid.y = cluster size): each
    // publishes its sums in shared memory, then CTA r adds up rows [r * 64 / splits, ...) of all
    // slices through distributed shared memory, in slice order (the same sum as the workspace
    // path below). The second barrier keeps every CTA's `part` alive until all reads are done.
    __shared__ float part[MV][kGemvRows];
    cg::cluster_group cluster = cg::this_cluster();
    if (t < kGemvRows)
#pragma unroll
      for (int m = 0; m < MV; ++m) part[m][t] = out[m];
    cluster.sync();
    const int r = static_cast<int>(cluster.block_rank());
    const int lo = r * kGemvRows / sk.splits, hi = (r + 1) * kGemvRows / sk.splits;
    if (t >= lo && t < hi && n < w.N) {
      float s[MV];
#pragma unroll
      for (int m = 0; m < MV; ++m) s[m] = 0.0f;
      for (int sl = 0; sl < sk.splits; ++sl) {
        const float* p = cluster.map_shared_rank(&part[0][0], sl);
#pragma unroll
        for (int m = 0; m < MV; ++m) s[m] += p[m * kGemvRows + t];
      }
#pragma unroll
      for (int m = 0; m < MV; ++m)
        if (m < M) C[m * w.N + n] = Tr::from_float(s[m]);
    }
    cluster.sync();
    return;
#endif
  }
  const int64_t MN = static_cast<int64_t>(M) * w.N;
  if (t < kGemvRows && n < w.N)
#pragma unroll
    for (int m = 0; m < MV; ++m)
      if (m < M) sk.partials[blockIdx.y * MN + m * w.N + n] = out[m];
  if (!splitk_arrive(sk, blockIdx.x)) return;
  if constexpr (MV == 1) {  // main's loop: the compiler keeps 16 slices' loads in flight here
    if (t < kGemvRows && n < w.N)
#pragma unroll
      for (int m = 0; m < MV; ++m)
        if (m < M) {
          float s = 0.0f;
          for (int sl = 0; sl < sk.splits; ++sl) s += __ldcg(sk.partials + sl * MN + m * w.N + n);
          C[m * w.N + n] = Tr::from_float(s);
        }
  } else {
    // M >= 2: the tile's M x 64 sums spread over all 128 threads (one each at M = 2) instead of M in
    // turn on 64 of them, each with up to 16 slices' loads in flight (slice_sum).
    for (int e = t; e < M * kGemvRows; e += kGemvThreads) {
      const int m = e / kGemvRows;
      const int64_t ne = n0 + e % kGemvRows;
      if (ne < w.N) {
        const float* src = sk.partials + m * w.N + ne;
        C[m * w.N + ne] = Tr::from_float(slice_sum<16>(sk.splits, [&](int sl) { return __ldcg(src + sl * MN); }));
      }
    }
  }
}

// Grouped: blockIdx.x is a work item (expert, up to MV consecutive rows of that expert),
// blockIdx.y the tile of 64 output rows.
template <Act ACT, int KB, int MV>
__global__ void __launch_bounds__(kGemvThreads, kGemvMinBlocks<KB, MV, true>) grouped_gemv_kernel(
    const typename ActTraits<ACT>::T* __restrict__ A, typename ActTraits<ACT>::T* __restrict__ C,
    const int32_t* offsets, TiledView w) {
  using Tr = ActTraits<ACT>;
  __shared__ float cb_s[1 << KB];
  __shared__ float2 pair_s[kUsePairs<KB, MV> ? 16 : 1];
  __shared__ float red[kGemvWarps][MV][kGemvRows];
  // The codebook is loaded before the wait -- it is part of the weights, which the work before
  // does not write (MoeArgs::pdl) -- and stored at the offsets scan's first barrier, so its round
  // trip overlaps the scan's (bench/results/2026-11-25-h100-moeprologue).
  const int t = threadIdx.x;
  float cb_v = 0.0f;
  float2 pair_v = make_float2(0.0f, 0.0f);
  if (t < (1 << KB)) cb_v = w.codebook[t];
  if (kUsePairs<KB, MV> && t < 16) pair_v = make_float2(w.codebook[t & 3], w.codebook[t >> 2]);
  pdl_wait();  // MoeArgs::pdl: the offsets, A and C only after the previous work in the stream
  const WorkItem item = find_work_item<kGemvThreads>(offsets, static_cast<int>(w.E), MV, blockIdx.x, [&] {
    if (t < (1 << KB)) cb_s[t] = cb_v;
    if (kUsePairs<KB, MV> && t < 16) pair_s[t] = pair_v;
  });
  if (item.expert < 0) return;

  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * kGemvRows;
  gemv_tile<ACT, KB, MV, false, MV == 1>([] {}, A + static_cast<int64_t>(item.row0) * w.K, w.packed + item.expert * w.expert_words(),
                         w.absmax + item.expert * w.expert_absmax(), cb_s, pair_s, w.N, w.K, item.rows, n0, 0,
                         k_tiles(w.K), red);
  pdl_launch_dependents();  // after the main loop, as the busy dense plans
  const int64_t n = n0 + t;
  if (t < kGemvRows && n < w.N)
#pragma unroll
    for (int m = 0; m < MV; ++m)
      if (m < item.rows)
        C[(item.row0 + m) * w.N + n] = Tr::from_float(red[0][m][t] + red[1][m][t] + red[2][m][t] + red[3][m][t]);
}

// ---------------------------------------------------------------------------------------------
namespace {

// Resident CTAs of one instantiation per SM (cached per device).
template <Act ACT, int KB, int MV, bool PT, bool LU = false>
int gemv_blocks_per_sm() {
  static int cache[64] = {};
  return cached_blocks_per_sm(gemv_kernel<ACT, KB, MV, kGemvWorkspace, PT, 0, LU>, kGemvThreads, cache);
}

// The staged kernels' resident CTAs per SM, cached per device; 0 where they cannot run, and
// launch_dense then keeps the register pipeline. The first call on a device opts both modes' kernels
// in to their dynamic shared memory (above 48 KB with the static arrays of the pair table) and to
// the largest shared-memory carveout (the resident CTAs the plan counts on need it), then asks for
// the occupancy; a failed query counts 1 CTA, as in cached_blocks_per_sm.
template <Act ACT, int KB, bool PT>
int gemv_staged_blocks_per_sm() {
  static int cache[64] = {};  // 0: not asked yet on that device, -1: the opt-in failed
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return 0;
  if (cache[dev] == 0) {
    constexpr int bytes = kStageBytes<KB, kGemvStageDepth>;
    const auto opt_in = [](auto kern) {
      return cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) == cudaSuccess &&
             cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutMaxShared) == cudaSuccess;
    };
    const auto kern = gemv_kernel<ACT, KB, 1, kGemvWorkspace, PT, kGemvStageDepth>;
    int n = 0;
    if (!opt_in(kern) || !opt_in(gemv_kernel<ACT, KB, 1, kGemvEarly, PT, kGemvStageDepth>)) {
      cudaGetLastError();  // the failed opt-in is not a launch's error
      n = -1;
    } else if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kern, kGemvThreads, bytes) != cudaSuccess || n < 1) {
      n = 1;
    }
    cache[dev] = n;
  }
  return cache[dev] > 0 ? cache[dev] : 0;
}

// The staged form reads the absmax bytes 4 at a time (N even, a 4-byte aligned array) and the words
// of k = 4 16 bytes, of k = 2 8 bytes at a time.
bool gemv_staged_fits(const TiledView& w) {
  const auto addr = [](const void* p) { return reinterpret_cast<uintptr_t>(p); };
  return w.N % 2 == 0 && addr(w.absmax) % 4 == 0 && addr(w.packed) % 16 == 0 && w.expert_absmax() % 4 == 0;
}

template <Act ACT, int KB, int MV, bool PT, bool LU = false>
GemvPlan dense_plan(const TiledView& w, int64_t& slots) {
  slots = static_cast<int64_t>(gemv_blocks_per_sm<ACT, KB, MV, PT, LU>()) * device_sm_count();
  return gemv_plan_for(w.N, w.K, slots, device_sm_count(), device_has_clusters());
}

// At M = 1 and k = 4 the pair table stays off where its grid would take more than one wave of CTAs
// (unless forced, gemv_force_pairs) on devices of less than 4,500 GB/s of peak DRAM bandwidth
// (gemv_pairs_multiwave, lib/kbit/gemv_sched.h): on the H100 it lost on the one such catalogue shape,
// Llama-3-70B gate_up (896 CTAs on 528 slots; 93.8 -> 99.7 us, bench/results/2026-11-26-h100-gemvpairs), where
// ncu shows its SMs idle for 17% of the run against 6% for the float codebook: with issue slots to
// spare its CTAs run no faster on the emptier SMs of the last wave, while the issue-bound float
// codebook's do. At M = 2..4 it won there too (1.01-1.07x). At k = 3 the table wins on that grid as
// well: 96.6 -> 82.9 us (1.165x, three runs each, bench/results/2026-11-26-h100-gemvdepth). On the H200
// it wins at M = 1, k = 4 too: 95.10 -> 87.67 us (1.085x, three runs of each arm in one call, f16 and bf16;
// bench/results/2026-11-28-h200-gemvptmw), where the float loop is issue-bound at 5.38 instructions per
// weight (-h200-final-s40) and the table's loop is 4.67 by SASS.
// LU: the register-pipeline launches at M = 1, k = 2 (KBIT_GEMV_LUT, gemv_lut_enabled); the staged form keeps
// its own decode.
template <Act ACT, int KB, int MV, bool PT, bool LU = false>
cudaError_t launch_dense(const LinearArgs& a, SplitK sk) {
  if constexpr (PT && KB == 2 && MV == 1 && !LU)
    if (lut_for(a.w)) return launch_dense<ACT, KB, MV, PT, true>(a, sk);
  using T = typename ActTraits<ACT>::T;
  int64_t slots = 0;
  GemvPlan p = dense_plan<ACT, KB, MV, PT, LU>(a.w, slots);
  if (a.pdl && MV <= 2) p = gemv_pdl_plan(p, a.w.K, MV);
  if constexpr (PT) {
    if (KB == 4 && MV == 1 && p.tiles * p.splits > slots && !gemv_pairs_multiwave(device_peak_dram_gbps()) &&
        g_gemv_force_pairs.load(std::memory_order_relaxed) != 1)
      return launch_dense<ACT, KB, MV, false>(a, sk);
    g_gemv_pair_launches.fetch_add(1, std::memory_order_relaxed);
  }
  const T* A = static_cast<const T*>(a.A);
  T* C = static_cast<T*>(a.C);
  const int M = static_cast<int>(a.M);
  if constexpr (MV == 1) {
    // The staged form (gemv_use_staged) where the register pipeline would run k-tiles in series.
    const int force = g_gemv_force_staged.load(std::memory_order_relaxed);
    // The staged kernels' occupancy only where the register plan leaves the rule a chance.
    const bool candidate = force == 1 || (force == 0 && gemv_staged_candidate(p, a.w.K));
    const int64_t sslots = candidate && gemv_staged_fits(a.w)
                               ? static_cast<int64_t>(gemv_staged_blocks_per_sm<ACT, KB, PT>()) * device_sm_count()
                               : 0;
    if (sslots > 0) {
      GemvPlan sp = gemv_plan_for(a.w.N, a.w.K, sslots, device_sm_count(), device_has_clusters());
      if (a.pdl) sp = gemv_pdl_plan(sp, a.w.K, 1);
      const bool early = a.pdl && gemv_early_launch(sp, a.w.K, sslots);
      // Under PDL only on the early grids. In the staged kernels that trigger after their main loop
      // ptxas hoists the activation slice's __ldg (LDG.E.128.CONSTANT, which it may treat as
      // invariant) above griddepcontrol.wait (SASS ACQBULK; bench/scripts/pdl_sass_check.py lists it),
      // and the PDL doctest read the producer's NaN poison (16960 x 992;
      // bench/results/2026-11-26-h100-stagedmends). In the early kernels the trigger right after the
      // wait keeps every read of A below it (the same listing).
      const bool pdl_ok = !a.pdl || early;
      if (pdl_ok && (force == 1 ? gemv_staged_plan_ok(sp, a.w.K) : gemv_use_staged(p, sp, a.w.K, device_sm_count()))) {
        g_gemv_staged_launches.fetch_add(1, std::memory_order_relaxed);
        g_gemv_staged_seen.fetch_or((1 << (gemv_warp_ktiles(sp, a.w.K) - 1)) | (a.pdl ? (early ? 16 : 32) : 0),
                                    std::memory_order_relaxed);
        sk.splits = sp.splits;
        const dim3 grid(static_cast<unsigned>(sp.tiles), sk.splits);
        constexpr int bytes = kStageBytes<KB, kGemvStageDepth>;
        if (early) {
          return launch_ex(gemv_kernel<ACT, KB, 1, kGemvEarly, PT, kGemvStageDepth>, grid, kGemvThreads, bytes,
                           a.stream, 1, a.pdl, A, C, M, a.w, sk);
        }
        return launch_ex(gemv_kernel<ACT, KB, 1, kGemvWorkspace, PT, kGemvStageDepth>, grid, kGemvThreads, bytes,
                         a.stream, 1, a.pdl, A, C, M, a.w, sk);
      }
    }
  }
  sk.splits = p.splits;
  const bool cluster = p.cluster;
  const dim3 grid(static_cast<unsigned>(p.tiles), sk.splits);
  if (LU) g_gemv_lut_launches.fetch_add(1, std::memory_order_relaxed);
  if (cluster)
    return launch_ex(gemv_kernel<ACT, KB, MV, kGemvCluster, PT, 0, LU>, grid, kGemvThreads, 0, a.stream, grid.y, a.pdl,
                     A, C, M, a.w, sk);
  [[maybe_unused]] const int64_t ctas = p.tiles * static_cast<int64_t>(sk.splits);
  if constexpr (MV <= 2)
    if (a.pdl && gemv_early_launch(p, a.w.K, slots)) {
      const auto kern = gemv_kernel<ACT, KB, MV, kGemvEarly, PT, 0, LU>;
      static int pads[64][16] = {};  // balance_pad's, per device and need
      const size_t pad = MV == 1 ? balance_pad(kern, ctas, slots, pads) : 0;
      return launch_ex(kern, grid, kGemvThreads, pad, a.stream, 1, a.pdl, A, C, M, a.w, sk);
    }
  return launch_ex(gemv_kernel<ACT, KB, MV, kGemvWorkspace, PT, 0, LU>, grid, kGemvThreads, 0, a.stream, 1, a.pdl, A,
                   C, M, a.w, sk);
}

template <Act ACT, int KB, bool PT>
cudaError_t launch_dense_mp(const LinearArgs& a, SplitK sk) {
  if constexpr (PT && KB == 2) {  // the adjacent-pair table serves M = 1 only (gemv_uses_pairs)
    return a.M == 1 ? launch_dense<ACT, 2, 1, true>(a, sk) : cudaErrorInvalidValue;
  } else {
    switch (a.M) {
      case 1: return launch_dense<ACT, KB, 1, PT>(a, sk);
      case 2: return launch_dense<ACT, KB, 2, PT>(a, sk);
      case 3: return launch_dense<ACT, KB, 3, PT>(a, sk);
      case 4: return launch_dense<ACT, KB, 4, PT>(a, sk);
    }
    return cudaErrorInvalidValue;
  }
}

template <Act ACT, int KB>
cudaError_t launch_dense_m(const LinearArgs& a, SplitK sk) {
  if constexpr (KB <= 4)
    if (gemv_uses_pairs(a.w, a.M)) return launch_dense_mp<ACT, KB, true>(a, sk);
  return launch_dense_mp<ACT, KB, false>(a, sk);
}

template <Act ACT>
cudaError_t launch_dense_k(const LinearArgs& a, SplitK sk) {
  return with_bits(a.w.bits, cudaErrorInvalidValue,
                   [&](auto kb) { return launch_dense_m<ACT, decltype(kb)::value>(a, sk); });
}

template <Act ACT, int KB, int MV>
cudaError_t launch_grouped(const MoeArgs& a) {
  using T = typename ActTraits<ACT>::T;
  const int64_t items = moe_max_items(a.w.E, a.total_rows, MV);
  if (items == 0) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>(items), static_cast<unsigned>((a.w.N + kGemvRows - 1) / kGemvRows));
  return launch_ex(grouped_gemv_kernel<ACT, KB, MV>, grid, kGemvThreads, 0, a.stream, 1, a.pdl,
                   static_cast<const T*>(a.A), static_cast<T*>(a.C), a.expert_offsets, a.w);
}

template <Act ACT, int KB>
cudaError_t launch_grouped_m(const MoeArgs& a) {
  // Rows per work item: the expected rows per active expert (1..4).
  const int hint = a.max_rows_per_expert_hint;
  if (hint == 1) return launch_grouped<ACT, KB, 1>(a);
  if (hint == 2) return launch_grouped<ACT, KB, 2>(a);
  return launch_grouped<ACT, KB, 4>(a);
}

template <Act ACT>
cudaError_t launch_grouped_k(const MoeArgs& a) {
  return with_bits(a.w.bits, cudaErrorInvalidValue,
                   [&](auto kb) { return launch_grouped_m<ACT, decltype(kb)::value>(a); });
}

}  // namespace

bool gemv_uses_pairs(const TiledView& w, int64_t M) {
  if (w.bits > 4 || (w.bits == 2 && M != 1)) return false;
  const int mode = g_gemv_force_pairs.load(std::memory_order_relaxed);
  if (mode != 0) return mode == 1;
  if (w.bits == 2) return true;  // 128 bytes to stage: every size
  return static_cast<double>(w.N) * static_cast<double>(w.K) >= kGemvPairsMinWeights;
}

bool gemv_timeline_set(uint32_t* buf, int ctas) {
#if KBIT_GEMV_TIMELINE
  return timeline_set_symbols(g_gemv_tl, g_gemv_tl_ctas, buf, ctas);
#else
  (void)buf, (void)ctas;
  return false;
#endif
}

size_t gemv_timeline_words(int ctas) {
  return Timeline<kGemvTlWarps, kGemvTlSteps, kGemvTlEvents, kGemvTlCtaWords>::buffer_words(ctas);
}

bool gemv_lut_enabled() { return lut_on(); }

void gemv_force_lut(int mode) { g_gemv_force_lut.store(mode, std::memory_order_relaxed); }

int64_t gemv_lut_launches() { return g_gemv_lut_launches.load(std::memory_order_relaxed); }

void gemv_force_pairs(int mode) { g_gemv_force_pairs.store(mode, std::memory_order_relaxed); }

int64_t gemv_pair_launches() { return g_gemv_pair_launches.load(std::memory_order_relaxed); }

void gemv_force_staged(int mode) { g_gemv_force_staged.store(mode, std::memory_order_relaxed); }

int64_t gemv_staged_launches() { return g_gemv_staged_launches.load(std::memory_order_relaxed); }

int gemv_staged_seen() { return g_gemv_staged_seen.exchange(0, std::memory_order_relaxed); }

size_t gemv_workspace_bytes(int64_t M, const TiledView& w) {
  const int splits = gemv_max_splits(w.N, w.K, device_sm_count());
  if (splits == 1) return 0;
  const int64_t tiles_n = (w.N + kGemvRows - 1) / kGemvRows;
  return splitk_counter_bytes(tiles_n) + static_cast<size_t>(splits) * M * w.N * sizeof(float);
}

cudaError_t launch_gemv(const LinearArgs& a) {
  SplitK sk;
  sk.splits = gemv_max_splits(a.w.N, a.w.K, device_sm_count());  // the plan may use fewer
  if (sk.splits > 1) {
    const int64_t tiles_n = (a.w.N + kGemvRows - 1) / kGemvRows;
    sk.counters = static_cast<uint32_t*>(a.workspace);
    sk.partials = reinterpret_cast<float*>(static_cast<char*>(a.workspace) + splitk_counter_bytes(tiles_n));
  }
  return a.act == Act::f16 ? launch_dense_k<Act::f16>(a, sk) : launch_dense_k<Act::bf16>(a, sk);
}

cudaError_t launch_grouped_gemv(const MoeArgs& a) {
  return a.act == Act::f16 ? launch_grouped_k<Act::f16>(a) : launch_grouped_k<Act::bf16>(a);
}

}  // namespace kbit::gpu::detail
