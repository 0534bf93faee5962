// The dense scalar GEMV (Kernel::gemv, M = 1..4): its kernel over the grid's row tiles and K slices, the launch plans
// (workspace, cluster and early PDL grids, the staged form, the pair and activation-sum tables) and the knobs. The
// design and the tile it runs are in gemv_common.cuh; the MoE form is grouped_gemv.cu.
#include <cooperative_groups.h>

#include <atomic>
#include <cstdlib>
#include <type_traits>

#include "gemv_common.cuh"

namespace kbit::gpu::detail {

namespace cg = cooperative_groups;

namespace {
// KBIT_GEMV_LUT (default 1; the environment's value overrides it, KBIT_GEMV_LUT=0 restores the codebook pairs and
// their dispatch): at M = 1, k = 2 the register-pipeline launches look up *activation* sums instead of codebook
// pairs. Before each step a warp writes, for every adjacent element pair (2i, 2i + 1) of its k-tile, the 16 sums
// cb[lo(v)] x[2i] + cb[hi(v)] x[2i + 1] (v: block_adjacent_pairs2's code; 2 KB per warp, gemv_tile's LU); the step
// then adds one 4-byte entry per pair of weights: PRMT (address) + LDS.32 + FADD, against PRMT + LDS.64 + 2 FFMA
// and the activations' conversions, and one shared-memory wavefront per warp-load instead of two (block h's tables
// in banks 0-15, h = 1's in 16-31).
#ifndef KBIT_GEMV_LUT
#define KBIT_GEMV_LUT 1
#endif
std::atomic<int> g_gemv_force_lut{0};        // gemv_force_lut (tests)
std::atomic<int64_t> g_gemv_lut_launches{0};  // gemv_lut_launches (tests)
std::atomic<int64_t> g_gemv_balance_launches{0};  // gemv_balance_launches (tests)
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
      const auto opt_in = [&] {
        return most <= fa.maxDynamicSharedSizeBytes ||
               cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(most)) ==
                   cudaSuccess;
      };
      const bool ok = want > 0 && most >= want && opt_in() &&
                      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kern, kGemvThreads,
                                                                    static_cast<size_t>(want)) == cudaSuccess &&
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

}  // namespace

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
      if (pad > 0) g_gemv_balance_launches.fetch_add(1, std::memory_order_relaxed);
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

bool gemv_balance_enabled() { return balance_on(); }

int64_t gemv_balance_launches() { return g_gemv_balance_launches.load(std::memory_order_relaxed); }

int gemv_balance_resident(int need, int* unpadded) {
  const auto kern = gemv_kernel<Act::f16, 2, 1, kGemvEarly, true, 0, true>;
  // The CTAs per SM the launch path counts (its plan's slots: the workspace instantiation's occupancy) -- the range
  // of need the balance serves -- then the pad balance_pad gives and the calculator's count at it.
  const int per_sm = gemv_blocks_per_sm<Act::f16, 2, 1, true, true>();
  if (unpadded != nullptr) *unpadded = per_sm;
  if (per_sm <= 0) return -1;
  if (!balance_on()) return -2;
  const int64_t sms = device_sm_count();
  static int cache[64][16] = {};  // this hook's own: the launch path's stays as its launches left it
  const size_t pad = balance_pad(kern, need * sms, per_sm * sms, cache);
  if (pad == 0) return 0;
  int n = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kern, kGemvThreads, pad) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return n;
}

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

}  // namespace kbit::gpu::detail
