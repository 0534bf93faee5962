// Tensor-core GEMM on Hopper's wgmma, any M (dispatch: M = 9..512) ("tcw"): tcv's register decode feeds wgmma
// m64nNk16 as its A operand (weights, from registers), the activations are its B operand (tokens =
// wgmma's N, from shared memory), and the asynchronous wgmma of one step runs on the tensor cores
// while the warps decode the next step. Each weight is decoded once per CTA for up to 256 tokens.
//
// Pre-pass (tcw_permute_kernel; it and the step loop live in tcw_common.cuh, shared with the MoE
// form in grouped_tcw.cu): the activations are rewritten into the workspace, per token tile and
// 128-k step, in the exact byte order wgmma's descriptor reads (lib/kbit/tcv_map.h: tcw_*),
// k permuted by the decode's slot map (slot_k for k >= 4, bt_slot_k for the byte tables of k <= 3),
// so the main kernel streams each step's tile into shared memory with 16-byte cp.async.
//
// CTA: 2 warpgroups = 8 warps = 128 weight rows; warp w owns rows 16 w .. 16 w + 15 (lane (g, q):
// rows g, g + 8, block q of each step, as in tcv with kw = 1). Both warpgroups read the same
// activation tile (3 stages). Per step (k >= 4): decode the fragments of sub-steps 0..3 -> wait for
// the step's tile and for the previous step's wgmma -> barrier -> start a later tile's copy -> 4
// wgmma (one per 16-k sub-step), one commit group -> decode sub-steps 4..7 -> 4 wgmma, a second
// group; k = 2, 3 decode the whole step first and issue 8 wgmma as one group. From 128-token tiles up
// (KBIT_TCW_MBAR, tcw_common.cuh) tcw_kernel has no barrier per step: thread 0 bulk-copies each
// stage, counted by a full mbarrier, and refills a stage once every warp has arrived on its empty
// mbarrier (its wgmma of the step that read it retired).
// Token tile: M's default (32, 64, 128, 256 tokens), or from M = 65 up half or a quarter of it, or 160, 192 or 224
// tokens where the default is 256 and the tile needs no more token tiles, up to M = 576 (KBIT_TCW_TILE160 / 192 /
// 224, kTcwMidMaxM), where the plans' cost model puts that well ahead (tcw_choose_tile, lib/kbit/tcw_sched.h). An
// SM holds two CTAs of the 32-token kernels and of the 64-token ones of k = 2, of k = 3 and of k = 4 on the pair
// table (kTcwMinBlocks, tcw_common.cuh), one of the others; the plan counts what the kernel holds (tcw_slots).
// Work (tcw_plan; tcw_slots, lib/kbit/tcw_sched.h): per tile -- tcw_kernel on row tiles x token tiles x K
// slices, the slices' fp32 partials summed by tcw_reduce_kernel -- or, where whole tiles leave the
// last wave short, stream-K -- tcw_streamk_kernel (tcw_streamk.cuh) on one wave of CTAs, each a
// contiguous range of (tile, step) units, tiles shared by two CTAs summed by tcw_fixup_kernel -- or,
// where per tile would take several waves (tcw_whole_runs), that kernel on runs of whole tiles, no tile
// shared. The two kernels have the same loop; they are separate because each is exactly the code measured for its
// plans (SASS compared with bench/scripts/sass_compare.py).
// Numerics equal tcv's: W' = cb * scale in fp32 rounded once to the activation type, fp32 sums --
// except at k = 4 with TiledView::half_cb, where the pair table (PR, tcv_decode.cuh) gives
// W' = rn(rn(cb) * scale), two roundings in the activation type.
//
// wgmma needs sm_90a (build with KBIT_CUDA_ARCHS=90a, the default); elsewhere the kernel body
// traps, and linear() refuses Kernel::tcw with bad_kernel before any launch (tcw_available()).
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <tuple>

#include <cooperative_groups.h>

#include "kbit/tcw_sched.h"
#include "tcw_common.cuh"
#include "tcw_streamk.cuh"  // tcw_streamk_kernel

namespace kbit::gpu::detail {

namespace cg = cooperative_groups;

// The kernel for per-tile plans (splits >= 1): CTA (row tile, token tile, slice) = blockIdx (x, y,
// z), slices of a tile summed by tcw_reduce_kernel, or with CL (launch_t: the cluster slices,
// KBIT_TCW_CLUSTER) by the cluster of the tile's slices itself.
template <Act ACT, int KB, int MN, bool PR, bool CL = false>
__global__ void __launch_bounds__(kTcwThreads, kTcwMinBlocks<KB, MN, PR>)
    tcw_kernel(const uint4* __restrict__ Ap, typename ActTraits<ACT>::T* __restrict__ C, int M, TiledView w,
               SplitK sk) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Tr = ActTraits<ACT>;
  using Cfg = TcwCfg<MN>;
  extern __shared__ __align__(128) char tiles[];
  __shared__ TcwSmem sm;
  stage_codebook<KB>(w.codebook, sm.cb);
  stage_scales(sm.scale);
#if KBIT_TCW_MBAR
  constexpr bool MB = kTcwMbar<MN>;  // the stages through bulk copies and mbarriers
  __shared__ TcwStageBars<Cfg::kStages> bars;
  if constexpr (MB) {
    if (threadIdx.x == 0) bars.init();
  }
#endif

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const int64_t N = w.N, K = w.K;
  const int64_t n_lo = static_cast<int64_t>(blockIdx.x) * kTcwRows + 16 * warp + g, n_hi = n_lo + 8;
  const int tok0 = static_cast<int>(blockIdx.y) * MN;
  const int64_t steps = tcw_steps(K), ktiles = k_tiles(K);
  int64_t sb, se;
  slice_range(steps, sk.splits, blockIdx.z, sb, se);
  KBIT_TCW_TL_BEGIN;
  KBIT_TCW_TL_CTA(0, tl_smid());
  KBIT_TCW_TL_CTA(1, tl_gtime());
  KBIT_TCW_TL_CTA(4, tl_clock());

  // The lane's block (step s: k-tile 2 s + q / 2, half q % 2) of rows n_lo and n_hi.
  const bool row_ok[2] = {n_lo < N, n_hi < N};
  const uint32_t* pw[2];
  const uint8_t* pa[2];
  block_pair_pointers<KB>(w.packed, w.absmax, N, n_lo, n_hi, q, sb, row_ok, pw, pa);
  const int64_t w_step = 2 * N * kBlocksPerTile * KB, a_step = 2 * N * kBlocksPerTile;
  uint32_t wn[2][KB] = {};  // fetch_block_pair keeps them on skipped blocks
  uint8_t sn[2];
  // 32-bit step indices in the loops (steps < 2^31 for any K < 2^38): 64-bit compares cost two
  // integer instructions each, on the pipe the decode loads most.
  const int sb32 = static_cast<int>(sb), se32 = static_cast<int>(se), ktiles32 = static_cast<int>(ktiles);
  auto fetch = [&](int step) {
    fetch_block_pair<KB>(step < se32 && 2 * step + q / 2 < ktiles32, row_ok, pw, pa, w_step, a_step, wn, sn);
  };
  // LinearArgs::pdl (launch_t, the tiles of kTcwPdlMain): the permuted A, C
  // and the partials only after tcw_permute_kernel. The first step's weights (which no launch
  // writes) are requested before the wait, so their memory round trip overlaps it (kTcwEarlyFetch;
  // the tiles a knob builds without PDL request them after the prologue). Every tile computes its
  // pointers here (bench/results/2026-11-26-h100-tcwearly measured that order at M = 64 and 256).
  if constexpr (kTcwPdlMain<MN, KB>) {
    if constexpr (kTcwEarlyFetch<MN, KB>) fetch(sb32);
    pdl_wait();
  }

  // This token tile's activation tiles, one per step (tcw_permute_kernel's layout).
  const uint4* bsrc = Ap + static_cast<int64_t>(blockIdx.y) * steps * (Cfg::kStageBytes / 16);
  auto issue_tile = [&](int64_t s, int stage) {
#if KBIT_TCW_MBAR
    if constexpr (MB) {  // thread 0 alone: the whole stage in one bulk copy
      if (threadIdx.x == 0 && s < se) {
        mbar_arrive_expect_tx(bars.full(stage), Cfg::kStageBytes);
        bulk_copy_g2s(smem_addr(tiles + stage * Cfg::kStageBytes), bsrc + s * (Cfg::kStageBytes / 16),
                      Cfg::kStageBytes, bars.full(stage));
      }
      return;
    }
#endif
    if (s < se) {
      const uint4* src = bsrc + s * (Cfg::kStageBytes / 16);
      char* dst = tiles + stage * Cfg::kStageBytes;
      for (int i = threadIdx.x; i < Cfg::kStageBytes / 16; i += kTcwThreads) cp_async16(dst + 16 * i, src + i, true);
    }
    cp_async_commit();
  };
#pragma unroll
  for (int st = 0; st < Cfg::kStages - 1; ++st) issue_tile(sb + st, st);

  __syncthreads();  // codebook and scales staged (and, with MB, the mbarriers initialised)
  const uint32_t cb_base = smem_addr(sm.cb);
  float cbr[KB <= 3 ? 1 << KB : 1];
#pragma unroll
  for (int e = 0; e < (KB <= 3 ? 1 << KB : 0); ++e) cbr[e] = sm.cb[e];
  const uint32_t pair_base = PR ? smem_addr(tiles + Cfg::kSmem) + 4 * lane : 0u;  // this lane's word of each table row

  float acc[MN / 2];
#pragma unroll
  for (int r = 0; r < MN / 2; ++r) acc[r] = 0.0f;

  // Per step: wait for its activation tile and for the previous step's wgmma, barrier, start the
  // copy of a later tile into the stage the previous step used, issue wgmma. Sub-step i of a stage
  // starts 2 i core-matrix columns in: descriptor + 16 i (the address field counts 16 bytes).
  int stage = 0;  // of step s
#if KBIT_TCW_MBAR
  uint32_t phase = 0;  // MB: the parity of step s's use of its stage
#endif
  auto sync_step = [&](int64_t s) -> uint64_t {
#if KBIT_TCW_MBAR
    if constexpr (MB) {
      // No CTA barrier: wait for step s's copy, retire this warp's wgmma of step s - 1, and tell the
      // producer (refill, thread 0) that this warp is done with the stage step s - 1 read.
      mbar_wait(bars.full(stage), phase);
      wgmma_wait<0>();
      if (s > sb && lane == 0) mbar_arrive(bars.empty(stage == 0 ? Cfg::kStages - 1 : stage - 1));
      const uint64_t d = tcv::tcw_desc(smem_addr(tiles + stage * Cfg::kStageBytes));
      if (++stage == Cfg::kStages) {
        stage = 0;
        phase ^= 1u;
      }
      return d;
    }
#endif
    cp_async_wait<Cfg::kStages - 2>();  // this thread's copies of step s landed
    fence_proxy_async_smem();           // ... and are visible to wgmma's reads
    wgmma_wait<0>();                    // step s - 1's wgmma are done with their tile and registers
    __syncthreads();
    issue_tile(s + Cfg::kStages - 1, stage == 0 ? Cfg::kStages - 1 : stage - 1);
    const uint64_t d = tcv::tcw_desc(smem_addr(tiles + stage * Cfg::kStageBytes));
    stage = stage + 1 == Cfg::kStages ? 0 : stage + 1;
    return d;
  };
  // MB, after step s's wgmma are issued: thread 0 copies step s + kStages - 1 into the stage
  // step s - 1 used, once every warp has released it (its empty barrier's phase for that use).
  auto refill = [&](int64_t s) {
#if KBIT_TCW_MBAR
    if constexpr (MB) {
      if (threadIdx.x == 0) {
        const int64_t r = s - sb, t = s + Cfg::kStages - 1;  // relative step, step to copy
        if (t < se) {
          const int slot = static_cast<int>((r + Cfg::kStages - 1) % Cfg::kStages);
          if (r > 0) mbar_wait(bars.empty(slot), static_cast<uint32_t>(((r - 1) / Cfg::kStages) & 1));
          issue_tile(t, slot);
        }
      }
    }
#endif
    (void)s;
  };
  // Issue wgmma for sub-steps i0 .. i0 + I - 1 with the A fragments a[0 .. I-1] and commit them as
  // one group. The fences pin the fragments and accumulators in their registers before the wgmma
  // fence (no instruction defining a wgmma input may sit between the fence and the wgmma).
  auto issue = [&](auto& a, uint64_t d, int i0) {
    constexpr int I = sizeof(a) / sizeof(a[0]);
#pragma unroll
    for (int i = 0; i < I; ++i)
#pragma unroll
      for (int r = 0; r < 4; ++r) fence_operand(a[i][r]);
#pragma unroll
    for (int r = 0; r < MN / 2; ++r) fence_operand(acc[r]);
    wgmma_fence();
#pragma unroll
    for (int i = 0; i < I; ++i) wgmma_rs<ACT, MN>(acc, a[i], d + static_cast<uint64_t>(16 * (i0 + i)));
    wgmma_commit();
#pragma unroll
    for (int r = 0; r < MN / 2; ++r) fence_operand(acc[r]);
  };
  auto next_weights = [&](int s, uint32_t(&wc)[2][KB], float(&sc)[2]) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
#pragma unroll
      for (int b = 0; b < KB; ++b) wc[j][b] = wn[j][b];
      sc[j] = sm.scale[sn[j]];
    }
    fetch(s + 1);
  };

  if constexpr (!kTcwEarlyFetch<MN, KB>) fetch(sb32);  // (the PDL tiles: before the PDL wait, kTcwEarlyFetch)
  if constexpr (PR) {
    // k = 4 with the pair table: the half steps of the k >= 4 loop below, fragments by frag_from_pairs.
    // The table is staged while the first step's weights are in flight (CTAs of small shapes run
    // 2-4 steps: staged before the fetch it cost them 0.1-0.6 us, bench/results/2026-11-25-h100-pairs).
    stage_pair_table_vec<ACT, kTcwThreads, 4>(sm.cb, reinterpret_cast<uint4*>(tiles + Cfg::kSmem));
    __syncthreads();
    uint32_t a0[4][4], a1[4][4];
    for (int s = sb32; s < se32; ++s) {
      KBIT_TCW_TL(s - sb32, 0);
      uint32_t wc[2][KB], T[2][4], sc2[2];
      float sc[2];
      next_weights(s, wc, sc);
      block_nibbles<KB>(wc[0], T[0]);
      block_nibbles<KB>(wc[1], T[1]);
      sc2[0] = pack2<ACT>(sc[0], sc[0]);  // exact: E4M4 values are fp16 and bf16 numbers
      sc2[1] = pack2<ACT>(sc[1], sc[1]);
      KBIT_TCW_TL(s - sb32, 1);
      wgmma_wait<1>();
      KBIT_TCW_TL(s - sb32, 2);
#pragma unroll
      for (int i = 0; i < 4; ++i) frag_from_pairs<ACT>(T, sc2, pair_base, i, a0[i]);
      KBIT_TCW_TL(s - sb32, 3);
      const uint64_t d = sync_step(s);
      KBIT_TCW_TL(s - sb32, 4);
      issue(a0, d, 0);
#pragma unroll
      for (int i = 0; i < 4; ++i) frag_from_pairs<ACT>(T, sc2, pair_base, 4 + i, a1[i]);
      issue(a1, d, 4);
      KBIT_TCW_TL(s - sb32, 5);
      refill(s);  // (after both halves: between them ptxas serialized the wgmma, C7513)
    }
  } else if constexpr (KB >= 4) {
    // Half steps: the fragments of sub-steps 0..3 and 4..7 live in a0 and a1 (32 registers, not 64)
    // and each half is its own wgmma group. a0 is rewritten only after wgmma_wait<1> retired the
    // previous step's first half; a1 after the wait<0> of sync_step retired its second half. The
    // decode of the first half overlaps the previous second half, the decode of the second half
    // this step's first half. (PTX: the A registers of an in-flight wgmma must not be written.)
    uint32_t a0[4][4], a1[4][4];
    for (int s = sb32; s < se32; ++s) {
      KBIT_TCW_TL(s - sb32, 0);
      uint32_t wc[2][KB], E[2][4], O[2][4];
      float sc[2];
      next_weights(s, wc, sc);
      block_offsets<KB>(wc[0], E[0], O[0]);
      block_offsets<KB>(wc[1], E[1], O[1]);
      KBIT_TCW_TL(s - sb32, 1);
      wgmma_wait<1>();
      KBIT_TCW_TL(s - sb32, 2);
#pragma unroll
      for (int i = 0; i < 4; ++i) frag_from_offsets<ACT, true>(E, O, sc, cb_base, i, a0[i]);
      KBIT_TCW_TL(s - sb32, 3);
      const uint64_t d = sync_step(s);
      KBIT_TCW_TL(s - sb32, 4);
      issue(a0, d, 0);
#pragma unroll
      for (int i = 0; i < 4; ++i) frag_from_offsets<ACT, true>(E, O, sc, cb_base, 4 + i, a1[i]);
      issue(a1, d, 4);
      KBIT_TCW_TL(s - sb32, 5);
      refill(s);  // (after both halves: between them ptxas serialized the wgmma, C7513)
    }
  } else {
    // k <= 3: the byte tables give all 8 fragments at once (W), so whole steps alternate between
    // two arrays: the one a step writes was last read two steps back, retired by the previous
    // step's wgmma_wait<0>; the decode of a step overlaps the previous step's wgmma.
    auto step = [&](int s, uint32_t(&a)[tcv::kMmasPerStep][4]) {
      KBIT_TCW_TL(s - sb32, 0);
      uint32_t wc[2][KB];
      float sc[2];
      next_weights(s, wc, sc);
      uint32_t W[2][4][4];
      table_pairs<ACT, KB>(wc, sc, cbr, W);
#pragma unroll
      for (int i = 0; i < tcv::kMmasPerStep; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r) a[i][r] = W[r & 1][tcv::bt_pair_r(i, r)][tcv::bt_pair_c(i)];
#if KBIT_TCW_TIMELINE
      KBIT_TCW_TL(s - sb32, 3);
      const uint64_t d = sync_step(s);
      KBIT_TCW_TL(s - sb32, 4);
      issue(a, d, 0);
      KBIT_TCW_TL(s - sb32, 5);
#else
      issue(a, sync_step(s), 0);
#endif
      refill(s);
    };
    uint32_t fa[2][tcv::kMmasPerStep][4];
    for (int s = sb32; s < se32; s += 2) {
      step(s, fa[0]);
      if (s + 1 < se32) step(s + 1, fa[1]);
    }
  }
  wgmma_wait<0>();
  cp_async_wait<0>();
  KBIT_TCW_TL_CTA(2, tl_gtime());
  KBIT_TCW_TL_CTA(3, static_cast<uint32_t>(se32 - sb32));
  KBIT_TCW_TL_CTA(5, tl_clock());
  // LinearArgs::pdl: the next launch (the reduction, or the next call) may start now; earlier,
  // its waiting CTAs slowed this grid's main loop (bench/results/2026-11-25-h100-pdl3).
  if constexpr (kTcwPdlMain<MN, KB>) pdl_launch_dependents();

  // acc[4 t + r]: row (r < 2 ? n_lo : n_hi), token tok0 + 8 t + 2 q + r % 2.
  auto each = [&](auto&& f) {
#pragma unroll
    for (int t = 0; t < MN / 8; ++t)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int64_t n = r < 2 ? n_lo : n_hi;
        const int token = tok0 + 8 * t + 2 * q + (r & 1);
        if (n < N && token < M) f(4 * t + r, n, token);
      }
  };
  if (sk.splits == 1) {
    each([&](int i, int64_t n, int token) { C[token * N + n] = Tr::from_float(acc[i]); });
    return;
  }
  if constexpr (CL) {
    // The slices of this tile are one cluster along grid.z (KBIT_TCW_CLUSTER; launch_t): each CTA puts its
    // accumulators in its stage memory, then CTA z sums every z-th group of 4 columns of the tile over the
    // cluster's slices in slice order and writes C. The stages are free once every warp's last wgmma has
    // read them (the barrier).
    static_assert(MN * kTcwRedStride * 4 <= Cfg::kSmem, "the accumulator tile fits the stage memory");
    float* red = reinterpret_cast<float*>(tiles);
    __syncthreads();
    const int r0 = 16 * warp + g;
#pragma unroll
    for (int t = 0; t < MN / 8; ++t)
#pragma unroll
      for (int r = 0; r < 4; ++r) red[(8 * t + 2 * q + (r & 1)) * kTcwRedStride + r0 + (r < 2 ? 0 : 8)] = acc[4 * t + r];
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();
    const int S = sk.splits;
    const int64_t n_base = static_cast<int64_t>(blockIdx.x) * kTcwRows;
    for (int e = static_cast<int>(blockIdx.z) * kTcwThreads + threadIdx.x; e < MN * kTcwRows / 4;
         e += S * kTcwThreads) {
      const int tl = e / (kTcwRows / 4), c4 = 4 * (e % (kTcwRows / 4)), token = tok0 + tl;
      if (token >= M) continue;
      // Every slice's load first (one round trip for all), then the sum in slice order.
      float4 p[kTcwMaxCluster];
#pragma unroll
      for (int sl = 0; sl < kTcwMaxCluster; ++sl)
        if (sl < S) p[sl] = *reinterpret_cast<const float4*>(cluster.map_shared_rank(red + tl * kTcwRedStride + c4, sl));
      float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
      for (int sl = 0; sl < kTcwMaxCluster; ++sl)
        if (sl < S) {
          v[0] += p[sl].x;
          v[1] += p[sl].y;
          v[2] += p[sl].z;
          v[3] += p[sl].w;
        }
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (n_base + c4 + j < N) C[token * N + n_base + c4 + j] = Tr::from_float(v[j]);
    }
    cluster.sync();  // the other slices read this CTA's shared memory until here
    return;
  }
  // Split K: this slice's fp32 partial; tcw_reduce_kernel sums the slices in order afterwards.
  const int64_t MNs = static_cast<int64_t>(M) * N;
  each([&](int i, int64_t n, int token) { sk.partials[blockIdx.z * MNs + token * N + n] = acc[i]; });
#else
  (void)Ap, (void)C, (void)M, (void)w, (void)sk;
  __trap();  // not built for sm_90a: launch_tcw refuses before launching
#endif
}

// C = sum of the split-K slices in slice order (deterministic), one thread per output element: a
// separate launch instead of the last-arriving CTA summing its tile alone, so the whole GPU reduces.
template <Act ACT>
__global__ void __launch_bounds__(256) tcw_reduce_kernel(const float* __restrict__ partials,
                                                         typename ActTraits<ACT>::T* __restrict__ C, int64_t elems,
                                                         int splits) {
  pdl_wait();  // LinearArgs::pdl: the partials only after tcw_kernel
  pdl_launch_dependents();
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= elems) return;
  float v = 0.0f;
  for (int sl = 0; sl < splits; ++sl) v += __ldcg(partials + sl * elems + i);
  C[i] = ActTraits<ACT>::from_float(v);
}

// Stream-K: C of the tiles that several CTAs shared: the partial slots of those CTAs summed in CTA order
// (deterministic). blockIdx.y + 1 = a CTA boundary; a boundary inside a tile that is the tile's
// first such boundary owns the tile (so each shared tile is summed once), the others return.
// blockIdx.x: a chunk of 1024 of the tile's MN x 128 elements, 4 adjacent rows per thread.
template <Act ACT, int MN>
__global__ void __launch_bounds__(256) tcw_fixup_kernel(typename ActTraits<ACT>::T* __restrict__ C, int M, int64_t N,
                                                        int64_t steps, TcwSched sch) {
  if constexpr (kTcwPdlTile<MN>) {  // LinearArgs::pdl: the partials only after tcw_streamk_kernel
    pdl_wait();
    pdl_launch_dependents();
  }
  const int64_t b = static_cast<int64_t>(blockIdx.y) + 1, tile = sched_fixup_tile(sch, steps, b);
  if (tile < 0) return;
  const int64_t u0 = tile * steps, c0 = b - 1, c1 = sched_cta(sch, u0 + steps - 1);
  const int e = 4 * (blockIdx.x * 256 + threadIdx.x);
  if (e >= MN * kTcwRows) return;
  const int64_t rt = tile % sch.row_tiles, tt = tile / sch.row_tiles;
  const int64_t token = tt * MN + e / kTcwRows, n0 = rt * kTcwRows + e % kTcwRows;
  if (token >= M || n0 >= N) return;
  // c0's segment of this tile starts at its first step (slot 1); every later CTA's starts inside it (slot 0).
  float4 v = __ldcg(reinterpret_cast<const float4*>(sch.partials + (2 * c0 + 1) * (MN * kTcwRows) + e));
  for (int64_t c = c0 + 1; c <= c1; ++c) {
    const float4 x = __ldcg(reinterpret_cast<const float4*>(sch.partials + (2 * c) * (MN * kTcwRows) + e));
    v.x += x.x, v.y += x.y, v.z += x.z, v.w += x.w;
  }
  const float r[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int j = 0; j < 4; ++j)
    if (n0 + j < N) C[token * N + n0 + j] = ActTraits<ACT>::from_float(r[j]);
}

// ---------------------------------------------------------------------------------------------
namespace {

struct TcwPlan {
  int mn = 32;
  int64_t steps = 0, tok_tiles = 0;
  TcwSched sched;              // partials set at launch
  bool pairs = false;          // the pair-table decode (tcw_uses_pairs)
  int ctas_per_sm = 1;         // the CTAs per SM the partition counts on (tcw_slots)
  bool shared_tiles = false;   // some tile is split between CTAs: partial slots and the fixup
  bool cluster = false;        // per tile: the slices as clusters where they fit (tcw_cluster_plan)
  size_t permuted_bytes = 0;   // the pre-pass output, 256-byte aligned size
  size_t partial_bytes = 0;
};

template <Act ACT, int KB, int MN, bool PR>
int tcw_blocks_per_sm() {
  static int cache[64] = {};
  return cached_blocks_per_sm(tcw_streamk_kernel<ACT, KB, MN, PR>, kTcwThreads, cache, tcw_smem_bytes<MN, PR>());
}

// The one place tcw's run-time variant becomes template arguments: f(kb, mn, pr) as integral
// constants for the decode of `bits` (k = 4 on the pair table with `pairs`) at token tile mn (32, 64,
// 128, 192 with KBIT_TCW_TILE192, else 256); `otherwise` for bits outside 2..5 (with_bits).
template <typename R, typename F>
R with_variant(int mn, int bits, bool pairs, R otherwise, F&& f) {
  auto by_mn = [&](auto kb, auto pr) -> R {
    switch (mn) {
      case 32: return f(kb, std::integral_constant<int, 32>{}, pr);
      case 64: return f(kb, std::integral_constant<int, 64>{}, pr);
      case 128: return f(kb, std::integral_constant<int, 128>{}, pr);
#if KBIT_TCW_TILE160
      case 160: return f(kb, std::integral_constant<int, 160>{}, pr);
#endif
#if KBIT_TCW_TILE192
      case 192: return f(kb, std::integral_constant<int, 192>{}, pr);
#endif
#if KBIT_TCW_TILE224
      case 224: return f(kb, std::integral_constant<int, 224>{}, pr);
#endif
      default: return f(kb, std::integral_constant<int, 256>{}, pr);
    }
  };
  if (pairs) return by_mn(std::integral_constant<int, 4>{}, std::true_type{});
  return with_bits(bits, otherwise, [&](auto kb) { return by_mn(kb, std::false_type{}); });
}

// Resident CTAs per SM (f16 and bf16 kernels have the same resources up to a register or two;
// the plan uses the f16 figure for both so the workspace query needs no dtype).
int blocks_per_sm(int mn, int bits, bool pairs) {
  return with_variant(mn, bits >= 2 && bits <= 5 ? bits : 5, pairs, 1, [](auto kb, auto tile, auto pr) {
    return tcw_blocks_per_sm<Act::f16, decltype(kb)::value, decltype(tile)::value, decltype(pr)::value>();
  });
}

// The partition: tcw_slots (lib/kbit/tcw_sched.h) on the SMs and the CTAs per SM the stream-K kernel
// holds.
std::atomic<int> g_tcw_force_plan{0};  // tcw_force_plan (tests)
std::atomic<int> g_tcw_force_tile{[] {  // tcw_force_tile (tests); at start KBIT_TCW_MN (launch.h)
  const int v = env_int("KBIT_TCW_MN", 0);
  return tcw_tile_built(v) ? v : 0;
}()};

// Whole runs of tiles on the stream-K kernel (tcw_partition's `whole`, lib/kbit/tcw_sched.h): where that
// kernel runs on mbarriers (KBIT_TCW_MBAR_SK), at k >= 4, on >= 16 steps (K > 1920), as measured at
// M = 512..1024 (at M <= 256 the catalogue's multi-wave per-tile plans all take balanced stream-K).
// KBIT_TCW_WHOLE_MINBITS: the least k (experiment knob; k = 2, 3 lost 0.90-0.96x).
#ifndef KBIT_TCW_WHOLE
#define KBIT_TCW_WHOLE 1
#endif
#ifndef KBIT_TCW_WHOLE_MINBITS
#define KBIT_TCW_WHOLE_MINBITS 4
#endif
bool tcw_whole_runs(int mn, int bits, int64_t steps) {
  return KBIT_TCW_WHOLE && KBIT_TCW_MBAR_SK != 0 && mn >= KBIT_TCW_MBAR_SK && bits >= KBIT_TCW_WHOLE_MINBITS &&
         steps >= 16;
}

static_assert(kTcwRows == 128, "tcw_sched.h's plan costs and partial bytes count 128-row tiles");

// Whether a per-tile plan of `splits` slices and `partial_bytes` of fp32 partials runs its slices as clusters
// (KBIT_TCW_CLUSTER, KBIT_TCW_CLUSTER_MINB in tcw_common.cuh); the forced plan 5 (tests) on every split of
// 2..kTcwMaxCluster slices.
bool tcw_cluster_plan(int64_t splits, size_t partial_bytes, int force) {
  if (force == 5) return splits >= 2 && splits <= kTcwMaxCluster;
  return force == 0 && splits >= 2 && splits <= KBIT_TCW_CLUSTER &&
         static_cast<double>(partial_bytes) >= KBIT_TCW_CLUSTER_MINB;
}

// KBIT_TCW_LONE64=0 in the environment prices k = 2 and 3's lone 64-token step as before the forty-sixth session
// (kTcwLone64K2Fitted in place of kTcwLone64K2, lib/kbit/tcw_sched.h), for A/B runs in one binary.
double tcw_lone64() {
  static const double price = env_knob("KBIT_TCW_LONE64", true) ? kTcwLone64K2 : kTcwLone64K2Fitted;
  return price;
}

// mid: the candidates between 128 and 256 tokens (kTcwMidMask); tcw_cluster_slices asks without them (see there).
TcwPlan tcw_plan(int64_t M, const TiledView& w, unsigned mid = kTcwMidMask) {
  TcwPlan p;
  p.steps = tcw_steps(w.K);
  p.sched.row_tiles = (w.N + kTcwRows - 1) / kTcwRows;
  p.pairs = tcw_uses_pairs(w);
  const int sms = device_sm_count(), force = g_tcw_force_plan.load(std::memory_order_relaxed);
  const int part_force = force == 5 ? 1 : force;  // the forced cluster plan: per tile
  auto slots_at = [&](int mn) {
    const int64_t tiles = p.sched.row_tiles * ((M + mn - 1) / mn);
    return tcw_slots(M, w.N, p.steps, tiles, sms, blocks_per_sm(mn, w.bits, p.pairs), mn >= 64 ? kTcwSharedSmMinSteps : 0,
                     part_force, tcw_whole_runs(mn, w.bits, p.steps));
  };
  // The token tile (lib/kbit/tcw_sched.h): M's default, or a smaller one where the cost model puts it
  // well ahead. The forced plans (tests) keep the default tile; tcw_force_tile (tests) sets any built tile.
  p.mn = force != 0 ? tcw_default_tile(M) : tcw_choose_tile(M, w.N, w.bits, sms, slots_at, mid, tcw_lone64());
  if (const int ft = g_tcw_force_tile.load(std::memory_order_relaxed); ft != 0 && (M + ft - 1) / ft <= kTcwMaxTokenTiles)
    p.mn = ft;
  p.tok_tiles = (M + p.mn - 1) / p.mn;
  const int64_t tiles = p.sched.row_tiles * p.tok_tiles;
  p.permuted_bytes = (static_cast<size_t>(p.tok_tiles) * p.steps * p.mn * kTileBytesPerToken + 255) / 256 * 256;
  p.sched.units = tiles * p.steps;
  const TcwSlots sl = slots_at(p.mn);
  p.ctas_per_sm = sl.ctas_per_sm;
  p.sched.ctas = sl.part.ctas;
  p.sched.splits = sl.part.splits;
  p.partial_bytes = static_cast<size_t>(tcw_partial_bytes(M, w.N, p.mn, tiles, sl.part));
  p.shared_tiles = p.partial_bytes > 0;
  p.cluster = tcw_cluster_plan(p.sched.splits, p.partial_bytes, force);
  return p;
}

// The dynamic shared memory tcw's kernels are launched with under PDL. A PDL grid (LinearArgs::pdl)
// starts while the work before it drains, and the CTA scheduler puts its CTAs wherever an SM has room;
// where the kernel's resources let an SM hold more of its CTAs than the plan counted
// (TcwPlan::ctas_per_sm), some SMs take two CTAs of a one-wave grid and others none. Launched plainly,
// the grid starts on idle SMs and is spread evenly. So under PDL such a kernel gets enough shared
// memory that an SM holds only the plan's count (where the device allows it). Without it k = 2 and 3
// lost up to 0.66x under PDL at 64-token tiles (Llama-3-70B q_proj M = 64, k = 3: 37.2 -> 51.2 us; with
// it 34.5; bench/results/2026-11-27-h100-tcwpdl64land, -tcwpdl64k3); k = 2's stream-K grids lost up to
// 0.64x while the plan miscounted their occupancy (-occfix).
constexpr int kTcwMaxPadCtas = 4;
struct TcwPads {
  int cap = 0;                       // the kernel's dynamic shared memory cap: max(bytes, every pad)
  int pad[kTcwMaxPadCtas + 1] = {};  // [c]: the launch size for at most c CTAs per SM; 0 none needed (or none works)
};
// Computed once per device (call_once): every pad, then the cap set as the kernel's opt-in, which every
// launch sets again (never lowered, so a padded launch on one thread cannot fail after a plain one on
// another).
template <typename Kern>
TcwPads tcw_compute_pads(Kern kern, int bytes, int dev) {
  TcwPads r;
  r.cap = bytes;
  int n = 0, per_sm = 0, optin = 0, reserved = 0;
  cudaFuncAttributes fa{};
  bool ok = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) == cudaSuccess &&
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kern, kTcwThreads, bytes) == cudaSuccess &&
            cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev) == cudaSuccess &&
            cudaFuncGetAttributes(&fa, kern) == cudaSuccess;
  int want[kTcwMaxPadCtas + 1] = {};
  for (int c = 1; ok && c <= kTcwMaxPadCtas && c < n; ++c) {
    const int bytes_c = pad_smem_bytes(per_sm, static_cast<int>(fa.sharedSizeBytes), reserved, c);
    if (bytes_c > bytes && bytes_c <= optin) {
      want[c] = bytes_c;
      r.cap = std::max(r.cap, bytes_c);
    }
  }
  if (ok && r.cap > bytes) ok = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, r.cap) == cudaSuccess;
  for (int c = 1; ok && c <= kTcwMaxPadCtas; ++c) {
    int m = 0;
    if (want[c] > 0 && cudaOccupancyMaxActiveBlocksPerMultiprocessor(&m, kern, kTcwThreads, want[c]) == cudaSuccess &&
        m == c)
      r.pad[c] = want[c];
  }
  if (!ok) {
    cudaGetLastError();  // a failed query leaves no error behind; launches go unpadded
    r = TcwPads{};
    r.cap = bytes;
    cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    cudaGetLastError();
  }
  return r;
}
// The plan's main kernel: SK the stream-K kernel, else tcw_kernel.
template <Act ACT, int KB, int MN, bool PR, bool SK>
constexpr auto tcw_main_kernel() {
  if constexpr (SK)
    return tcw_streamk_kernel<ACT, KB, MN, PR>;
  else
    return tcw_kernel<ACT, KB, MN, PR>;
}
template <Act ACT, int KB, int MN, bool PR, bool SK>
const TcwPads& tcw_pads() {
  static std::once_flag once[64];
  static TcwPads pads[64];
  static const TcwPads none{tcw_smem_bytes<MN, PR>(), {}};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return none;
  std::call_once(once[dev], [dev] {
    pads[dev] = tcw_compute_pads(tcw_main_kernel<ACT, KB, MN, PR, SK>(), tcw_smem_bytes<MN, PR>(), dev);
  });
  return pads[dev];
}
// The launch size of the plan's main kernel: padded under PDL where the plan counts fewer CTAs per SM than
// it holds.
template <Act ACT, int KB, int MN, bool PR, bool SK>
int tcw_launch_size(bool pdl, int ctas_per_sm) {
  const TcwPads& pads = tcw_pads<ACT, KB, MN, PR, SK>();
  const int pad = pdl && ctas_per_sm >= 1 && ctas_per_sm <= kTcwMaxPadCtas ? pads.pad[ctas_per_sm] : 0;
  return pad > 0 ? pad : tcw_smem_bytes<MN, PR>();
}
// The dynamic shared memory cap of the plan's main kernel (and of its cluster form, SK = false): its size
// and every pad.
template <Act ACT, int KB, int MN, bool PR, bool SK>
int tcw_smem_cap() {
  return std::max(tcw_smem_bytes<MN, PR>(), tcw_pads<ACT, KB, MN, PR, SK>().cap);
}
// tcw_launch_size, and the main kernel's cap set.
template <Act ACT, int KB, int MN, bool PR, bool SK>
cudaError_t tcw_launch_bytes(bool pdl, int ctas_per_sm, int& launch_bytes) {
  launch_bytes = tcw_launch_size<ACT, KB, MN, PR, SK>(pdl, ctas_per_sm);
  return cudaFuncSetAttribute(tcw_main_kernel<ACT, KB, MN, PR, SK>(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                              tcw_smem_cap<ACT, KB, MN, PR, SK>());
}

// Whether launch_t launches a plan's kernels with LinearArgs::pdl (comment there): at every M where the
// tile's main kernel carries the PDL instructions (kTcwPdlMain; above M = 64 as KBIT_TCW_PDL_MAXM allows,
// tcw_common.cuh).
template <int MN, int KB>
bool tcw_launch_pdl(bool pdl, int64_t M, const TcwPlan& p) {
  return pdl && (p.tok_tiles * MN <= 64 || M <= KBIT_TCW_PDL_MAXM) &&
         (MN == 32 || (kTcwPdlMain<MN, KB> && (KBIT_TCW_PDL64 == 2 || p.sched.ctas <= device_sm_count())));
}

// Whether the per-tile plan p runs its K slices as clusters of tcw_kernel<ACT, KB, MN, PR, true> launched at
// `bytes` of dynamic shared memory: the plan asks for them (TcwPlan::cluster) and the GPU holds every tile's
// cluster at once (else some tiles would wait for a second wave). launch_t, tcw_occupancy and
// tcw_cluster_slices all decide here. The first ask per device and size sets the kernel's shared-memory cap
// and counts its resident clusters (cudaOccupancyMaxActiveClusters); later asks read the count.
template <Act ACT, int KB, int MN, bool PR>
bool tcw_cluster_runs(const TcwPlan& p, int bytes) {
  if (!p.cluster || p.sched.splits < 2 || p.sched.splits > kTcwMaxCluster || !device_has_clusters()) return false;
  static std::mutex mu;
  static std::map<std::tuple<int, int64_t, int>, int> cache;  // (device, cluster size, bytes) -> clusters
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return false;
  const auto key = std::make_tuple(dev, p.sched.splits, bytes);
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it == cache.end()) {
    auto kern = tcw_kernel<ACT, KB, MN, PR, true>;
    int n = 0;
    bool ok = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   tcw_smem_cap<ACT, KB, MN, PR, false>()) == cudaSuccess;
    if (ok) {
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = dim3(static_cast<unsigned>(p.sched.row_tiles), static_cast<unsigned>(p.tok_tiles),
                         static_cast<unsigned>(p.sched.splits));
      cfg.blockDim = dim3(kTcwThreads);
      cfg.dynamicSmemBytes = bytes;
      cudaLaunchAttribute attr;
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = 1;
      attr.val.clusterDim.y = 1;
      attr.val.clusterDim.z = static_cast<unsigned>(p.sched.splits);
      cfg.attrs = &attr;
      cfg.numAttrs = 1;
      ok = cudaOccupancyMaxActiveClusters(&n, kern, &cfg) == cudaSuccess;
    }
    if (!ok) {
      cudaGetLastError();  // a failed set or query leaves no error behind; the grid runs without clusters
      n = 0;
    }
    it = cache.emplace(key, n).first;
  }
  return p.sched.row_tiles * p.tok_tiles <= it->second;
}

template <Act ACT, int KB, int MN, bool PR>
cudaError_t launch_t(const LinearArgs& a, const TcwPlan& p, uint4* permuted) {
  using T = typename ActTraits<ACT>::T;
  const int64_t rows16 = p.tok_tiles * p.steps * (MN * kTileBytesPerToken / 16);
  // LinearArgs::pdl: every launch below may start while the one before it drains; each waits for
  // it (pdl_wait) before it reads what that one writes. With 32-token tiles (M <= 32) at every k:
  // they gained 1.05-1.3x on every catalogue shape. With 64-token tiles only at the widths of
  // KBIT_TCW_PDL64_BITS (tcw_common.cuh; all by default; bench/results/2026-11-25-h100-pdl4,
  // 2026-11-27-h100-tcwpdl64*, -occfix). With 128- and 256-token tiles, and every tile above M = 64, since
  // KBIT_TCW_PDL_BIG and KBIT_TCW_PDL_MAXM: tcw_pdl 1.09-1.16x geomean at M = 96..256, 1.05x at 1024
  // (bench/results/2026-11-27-h100-pdlbig). Main kernels a knob leaves out are compiled without the PDL
  // instructions (the pre-pass, fixup and tcw_reduce_kernel have them where any width launches with PDL:
  // without the attribute they do nothing).
  const bool pdl = tcw_launch_pdl<MN, KB>(a.pdl, a.M, p);
  const dim3 pgrid(static_cast<unsigned>((rows16 + 255) / 256));
  if (cudaError_t e = launch_ex(tcw_permute_kernel<ACT, (KB <= 3 || PR), MN>, pgrid, 256, 0, a.stream, 1, pdl,
                                static_cast<const T*>(a.A), permuted, static_cast<int>(a.M), a.w.K, rows16);
      e != cudaSuccess)
    return e;
  constexpr int bytes = tcw_smem_bytes<MN, PR>();
  if (p.sched.splits > 0) {  // per tile: tcw_kernel on (row tiles, token tiles, slices), slices summed by tcw_reduce_kernel
    auto kern = tcw_kernel<ACT, KB, MN, PR>;
    int launch_bytes = bytes;
    if (cudaError_t e = tcw_launch_bytes<ACT, KB, MN, PR, false>(pdl, p.ctas_per_sm, launch_bytes); e != cudaSuccess)
      return e;
    SplitK sk;
    sk.splits = p.sched.splits;
    sk.partials = p.sched.partials;
    const dim3 grid(static_cast<unsigned>(p.sched.row_tiles), static_cast<unsigned>(p.tok_tiles),
                    static_cast<unsigned>(p.sched.splits));
    // The cluster slices (TcwPlan::cluster): each tile's slices one cluster, summed inside the kernel.
    if (tcw_cluster_runs<ACT, KB, MN, PR>(p, launch_bytes))
      return launch_cluster_ex(tcw_kernel<ACT, KB, MN, PR, true>, grid, kTcwThreads, launch_bytes, a.stream,
                               dim3(1, 1, grid.z), pdl, static_cast<const uint4*>(permuted), static_cast<T*>(a.C),
                               static_cast<int>(a.M), a.w, sk);
    if (cudaError_t e = launch_ex(kern, grid, kTcwThreads, launch_bytes, a.stream, 1, pdl,
                                  static_cast<const uint4*>(permuted), static_cast<T*>(a.C), static_cast<int>(a.M), a.w,
                                  sk);
        e != cudaSuccess || p.sched.splits == 1)
      return e;
    const int64_t elems = a.M * a.w.N;
    return launch_ex(tcw_reduce_kernel<ACT>, dim3(static_cast<unsigned>((elems + 255) / 256)), 256, 0, a.stream, 1, pdl,
                     static_cast<const float*>(p.sched.partials), static_cast<T*>(a.C), elems, p.sched.splits);
  }
  // stream-K: tcw_streamk_kernel on one wave, shared tiles summed by tcw_fixup_kernel
  auto kern = tcw_streamk_kernel<ACT, KB, MN, PR>;
  int launch_bytes = bytes;
  if (cudaError_t e = tcw_launch_bytes<ACT, KB, MN, PR, true>(pdl, p.ctas_per_sm, launch_bytes); e != cudaSuccess)
    return e;
  if (cudaError_t e = launch_ex(kern, dim3(static_cast<unsigned>(p.sched.ctas)), kTcwThreads, launch_bytes, a.stream, 1, pdl,
                                static_cast<const uint4*>(permuted), static_cast<T*>(a.C), static_cast<int>(a.M), a.w,
                                p.sched);
      e != cudaSuccess || !p.shared_tiles)
    return e;
  const dim3 grid((MN * kTcwRows / 4 + 255) / 256, static_cast<unsigned>(p.sched.ctas - 1));
  return launch_ex(tcw_fixup_kernel<ACT, MN>, grid, 256, 0, a.stream, 1, pdl, static_cast<T*>(a.C),
                   static_cast<int>(a.M), a.w.N, p.steps, p.sched);
}

template <Act ACT>
cudaError_t launch_k(const LinearArgs& a, const TcwPlan& p, uint4* permuted) {
  return with_variant(p.mn, a.w.bits, p.pairs, cudaErrorInvalidValue, [&](auto kb, auto tile, auto pr) {
    return launch_t<ACT, decltype(kb)::value, decltype(tile)::value, decltype(pr)::value>(a, p, permuted);
  });
}

}  // namespace

// Workspace: [permuted activations][fp32 partial slots of shared tiles].
size_t tcw_workspace_bytes(int64_t M, const TiledView& w) {
  const TcwPlan p = tcw_plan(M, w);
  return p.permuted_bytes + p.partial_bytes;
}

bool tcw_uses_pairs(const TiledView& w) { return w.bits == 4 && w.half_cb; }

bool tcw_pdl_above64(int bits) {
  // The measured build: every M under PDL (tcw_launch_pdl; at least to 576, the PDL rules' largest M), at
  // every grid size, and the main kernels of the tiles a plan above M = 64 can take (64, 128, 256 tokens)
  // carrying the PDL instructions at this width.
  return KBIT_TCW_PDL_MAXM >= 576 && KBIT_TCW_PDL64 == 2 && with_bits(bits, false, [](auto kb) {
           constexpr int KB = decltype(kb)::value;
           return kTcwPdlMain<64, KB> && kTcwPdlMain<128, KB> && kTcwPdlMain<256, KB>;
         });
}

bool tcw_available() {
#if defined(KBIT_HAVE_SM90A)
  static int cached[64] = {};  // 0 unknown, 1 yes, 2 no (per device)
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0) return false;
  if (dev < 64 && cached[dev] != 0) return cached[dev] == 1;
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  const bool yes = major == 9 && minor == 0;
  if (dev < 64) cached[dev] = yes ? 1 : 2;
  return yes;
#else
  return false;
#endif
}

void tcw_force_plan(int mode) { g_tcw_force_plan.store(mode, std::memory_order_relaxed); }

bool tcw_tile_built(int mn) {
  if (mn == 32 || mn == 64 || mn == 128 || mn == 256) return true;
  for (int j = 0; j < 3; ++j)  // the tiles between 128 and 256: the plan's candidates (kTcwMidMask) are the built ones
    if (kTcwMidTiles[j] == mn) return (kTcwMidMask >> j & 1u) != 0;
  return false;
}

bool tcw_timeline_set(uint32_t* buf, int ctas) {
#if KBIT_TCW_TIMELINE
  return timeline_set_symbols(g_tcw_tl, g_tcw_tl_ctas, buf, ctas);
#else
  (void)buf, (void)ctas;
  return false;
#endif
}

size_t tcw_timeline_words(int ctas) {
  return Timeline<kTcwTlWarps, kTcwTlSteps, kTcwTlEvents, kTcwTlCtaWords>::buffer_words(ctas);
}

void tcw_force_tile(int mn) { g_tcw_force_tile.store(tcw_tile_built(mn) ? mn : 0, std::memory_order_relaxed); }

bool tcw_cluster_slices(int64_t M, const TiledView& w, Act act, bool pdl) {
  if (!tcw_available() || M < 1 || M > kTcwMaxM) return false;
  // The plan without the tiles between 128 and 256 tokens (160, 192, 224): the dispatch rule that asks
  // (choose_kernel, api.cu) was measured on those plans (bench/results/2026-11-27-h100-cldisp), and the tile moves
  // some shapes' plans into or out of cluster slices (Qwen3 q_proj at M = 158..160, k = 2, 3, out, where tcw's
  // 192-token plan measured 1.10-1.14x faster than the 128-token cluster plan: bench/results/2026-11-28-h100-
  // tile192). Where the rule takes tcw, the launch plans with the tile.
  const TcwPlan p = tcw_plan(M, w, 0u);
  if (!p.cluster) return false;
  return with_variant(p.mn, w.bits, p.pairs, false, [&](auto kb, auto tile, auto pr) {
    constexpr int KB = decltype(kb)::value, MN = decltype(tile)::value;
    constexpr bool PR = decltype(pr)::value;
    auto runs = [&](auto a) {  // at the size launch_t launches the plan's kernel with
      constexpr Act A = decltype(a)::value;
      return tcw_cluster_runs<A, KB, MN, PR>(
          p, tcw_launch_size<A, KB, MN, PR, false>(tcw_launch_pdl<MN, KB>(pdl, M, p), p.ctas_per_sm));
    };
    return act == Act::bf16 ? runs(std::integral_constant<Act, Act::bf16>{})
                            : runs(std::integral_constant<Act, Act::f16>{});
  });
}

TcwOccupancy tcw_occupancy(int64_t M, const TiledView& w, bool pdl) {
  const TcwPlan p = tcw_plan(M, w);
  TcwOccupancy o;
  o.plan = p.ctas_per_sm;
  o.mn = p.mn;
  o.stream_k = p.sched.splits == 0;
  with_variant(p.mn, w.bits, p.pairs, 0, [&](auto kb, auto tile, auto pr) {
    constexpr int KB = decltype(kb)::value, MN = decltype(tile)::value;
    constexpr bool PR = decltype(pr)::value;
    // The kernel's resident CTAs at the size launch_t gives it (tcw_launch_pdl: as launch_t decides).
    auto resident = [&](auto sk, bool pdl_launch, int& bytes) {
      constexpr bool SK = decltype(sk)::value;
      int n = 0;
      if (tcw_launch_bytes<Act::f16, KB, MN, PR, SK>(pdl_launch, p.ctas_per_sm, bytes) == cudaSuccess &&
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, tcw_main_kernel<Act::f16, KB, MN, PR, SK>(), kTcwThreads,
                                                        bytes) == cudaSuccess)
        return n;
      return 0;
    };
    const bool live = tcw_launch_pdl<MN, KB>(pdl, M, p);
    o.resident = o.stream_k ? resident(std::true_type{}, live, o.smem) : resident(std::false_type{}, live, o.smem);
    int plain_bytes = 0;  // what the stream-K kernel holds at its unpadded size
    o.streamk = resident(std::true_type{}, false, plain_bytes);
    o.cluster = !o.stream_k && tcw_cluster_runs<Act::f16, KB, MN, PR>(p, o.smem);  // as launch_t decides
    return 0;
  });
  return o;
}

cudaError_t launch_tcw(const LinearArgs& a) {  // linear() has checked tcw_available()
  TcwPlan p = tcw_plan(a.M, a.w);
  char* ws = static_cast<char*>(a.workspace);
  if (p.shared_tiles) p.sched.partials = reinterpret_cast<float*>(ws + p.permuted_bytes);
  uint4* permuted = reinterpret_cast<uint4*>(ws);
  return a.act == Act::f16 ? launch_k<Act::f16>(a, p, permuted) : launch_k<Act::bf16>(a, p, permuted);
}

}  // namespace kbit::gpu::detail
