// tcw's stream-K kernel (tcw.cu's stream-K plans; the plan, launch and fixup are in tcw.cu, which
// alone includes this file, before tcw_kernel: the two kernels share the decode and step loop's form,
// docs/kernels.md).
#pragma once

#include "kbit/tcw_sched.h"
#include "tcw_common.cuh"

namespace kbit::gpu::detail {

// The kernel for stream-K plans (TcwSched with splits = 0): the CTA walks its range of units tile by
// tile (its epilogue also handles splits > 0, the form it was measured in; the plan sends those to
// tcw_kernel (tcw.cu), which was ~0.9 us faster on small shapes in the same run, likely its fixed-tile
// indexing against the 64-bit divisions of the unit walk).
template <Act ACT, int KB, int MN, bool PR>
__global__ void __launch_bounds__(kTcwThreads, kTcwMinBlocks<KB, MN, PR>)
    tcw_streamk_kernel(const uint4* __restrict__ Ap, typename ActTraits<ACT>::T* __restrict__ C, int M, TiledView w,
               TcwSched sch) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Tr = ActTraits<ACT>;
  using Cfg = TcwCfg<MN>;
  extern __shared__ __align__(128) char tiles[];
  __shared__ TcwSmem sm;
  stage_codebook<KB>(w.codebook, sm.cb);
  stage_scales(sm.scale);
  // LinearArgs::pdl (launch_t: the tiles of kTcwPdlMain; others compile without it): the permuted A, C and the partials only after
  // tcw_permute_kernel. No pdl_launch_dependents: the next launch starts as the CTAs exit (CTAs
  // waiting beside a busy grid slowed it, bench/results/2026-11-25-h100-pdl3).
  if constexpr (kTcwPdlMain<MN, KB>) pdl_wait();

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const int64_t N = w.N, K = w.K;
  const int64_t steps = tcw_steps(K), ktiles = k_tiles(K);
#if KBIT_TCW_MBAR_SK
  // MB: the stages through thread 0's bulk copies and per-stage mbarriers (KBIT_TCW_MBAR_SK,
  // tcw_common.cuh), over the CTA's whole range: step j of the range (every segment's steps in turn)
  // uses stage j % kStages, and thread 0 copies step j + kStages - 1 as soon as every warp released
  // that stage, across segment ends (no pipeline refill per segment, no barrier between them).
  constexpr bool MB = kTcwMbarSK<MN>;
  __shared__ TcwStageBars<Cfg::kStages> bars;
  const int64_t u_first = sched_begin(sch, blockIdx.x);
  const int range = static_cast<int>(sched_begin(sch, blockIdx.x + 1) - u_first);  // steps in the range
  // Thread 0's next copy: its step, row tile and token tile, advanced by one unit per copy (the copies
  // go in order, t = 0, 1, ...), so no 64-bit division per step.
  int64_t pos_s = 0, pos_rt = 0, pos_tt = 0;
  auto issue_unit = [&](int t) {  // thread 0: step t of the range into stage t % kStages
    const int slot = t % Cfg::kStages;
    mbar_arrive_expect_tx(bars.full(slot), Cfg::kStageBytes);
    bulk_copy_g2s(smem_addr(tiles + slot * Cfg::kStageBytes), Ap + (pos_tt * steps + pos_s) * (Cfg::kStageBytes / 16),
                  Cfg::kStageBytes, bars.full(slot));
    if (++pos_s == steps) {
      pos_s = 0;
      if (++pos_rt == sch.row_tiles) {
        pos_rt = 0;
        ++pos_tt;
      }
    }
  };
  if constexpr (MB) {
    if (threadIdx.x == 0) {
      const int64_t tile = u_first / steps;
      pos_s = u_first % steps;
      pos_rt = tile % sch.row_tiles;
      pos_tt = tile / sch.row_tiles;
      bars.init();
      for (int t = 0; t < Cfg::kStages - 1 && t < range; ++t) issue_unit(t);
    }
  }
  int j = 0;  // MB: the steps of the range consumed so far
#endif
  __syncthreads();  // codebook and scales staged (and, with MB, the mbarriers initialised)
  const uint32_t cb_base = smem_addr(sm.cb);
  float cbr[KB <= 3 ? 1 << KB : 1];
#pragma unroll
  for (int e = 0; e < (KB <= 3 ? 1 << KB : 0); ++e) cbr[e] = sm.cb[e];
  uint32_t pair_base = 0;  // PR: this lane's word of the pair table's rows
  if constexpr (PR) {
    stage_pair_table_vec<ACT, kTcwThreads, 4>(sm.cb, reinterpret_cast<uint4*>(tiles + Cfg::kSmem));
    pair_base = smem_addr(tiles + Cfg::kSmem) + 4 * lane;
    __syncthreads();
  }

  // This CTA's units, one segment (a tile's steps sb .. se - 1) at a time.
  const int64_t cta = blockIdx.x;
  int64_t u = sched_begin(sch, cta);
  const int64_t u_end = sched_begin(sch, cta + 1);
  while (u < u_end) {
  const int64_t tile = u / steps, sb = u % steps;
  const int64_t se = u_end - u < steps - sb ? sb + (u_end - u) : steps;
  u += se - sb;
  const int64_t rt = tile % sch.row_tiles, tt = tile / sch.row_tiles;
  const int64_t n_lo = rt * kTcwRows + 16 * warp + g, n_hi = n_lo + 8;
  const int tok0 = static_cast<int>(tt) * MN;

  // This token tile's activation tiles, one per step (tcw_permute_kernel's layout).
  const uint4* bsrc = Ap + tt * steps * (Cfg::kStageBytes / 16);
  auto issue_tile = [&](int64_t s, int stage) {
    if (s < se) {
      const uint4* src = bsrc + s * (Cfg::kStageBytes / 16);
      char* dst = tiles + stage * Cfg::kStageBytes;
      for (int i = threadIdx.x; i < Cfg::kStageBytes / 16; i += kTcwThreads) cp_async16(dst + 16 * i, src + i, true);
    }
    cp_async_commit();
  };
#if KBIT_TCW_MBAR_SK
  if constexpr (!MB)
#endif
#pragma unroll
    for (int st = 0; st < Cfg::kStages - 1; ++st) issue_tile(sb + st, st);

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

  float acc[MN / 2];
#pragma unroll
  for (int r = 0; r < MN / 2; ++r) acc[r] = 0.0f;

  // Per step: wait for its activation tile and for the previous step's wgmma, barrier, start the
  // copy of a later tile into the stage the previous step used, issue wgmma. Sub-step i of a stage
  // starts 2 i core-matrix columns in: descriptor + 16 i (the address field counts 16 bytes).
  int stage = 0;  // of step s
  auto sync_step = [&](int64_t s) -> uint64_t {
#if KBIT_TCW_MBAR_SK
    if constexpr (MB) {
      // No CTA barrier: wait for step j's copy, retire this warp's wgmma of step j - 1, and tell
      // thread 0 (refill) that this warp is done with the stage step j - 1 read.
      mbar_wait(bars.full(j % Cfg::kStages), static_cast<uint32_t>((j / Cfg::kStages) & 1));
      wgmma_wait<0>();
      if (j > 0 && lane == 0) mbar_arrive(bars.empty((j - 1) % Cfg::kStages));
      return tcv::tcw_desc(smem_addr(tiles + (j % Cfg::kStages) * Cfg::kStageBytes));
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
  // MB, after step j's wgmma are issued: thread 0 copies step j + kStages - 1 into the stage step
  // j - 1 used, once every warp has released it (its empty barrier's phase for that use); then the
  // next step.
  auto refill = [&] {
#if KBIT_TCW_MBAR_SK
    if constexpr (MB) {
      const int t = j + Cfg::kStages - 1;
      if (threadIdx.x == 0 && t < range) {
        if (t >= Cfg::kStages) mbar_wait(bars.empty(t % Cfg::kStages), static_cast<uint32_t>((t / Cfg::kStages - 1) & 1));
        issue_unit(t);
      }
      ++j;
    }
#endif
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

  fetch(sb32);
  if constexpr (PR) {
    // k = 4 with the pair table: the half steps of the k >= 4 loop below, fragments by frag_from_pairs.
    uint32_t a0[4][4], a1[4][4];
    for (int s = sb32; s < se32; ++s) {
      uint32_t wc[2][KB], T[2][4], sc2[2];
      float sc[2];
      next_weights(s, wc, sc);
      block_nibbles<KB>(wc[0], T[0]);
      block_nibbles<KB>(wc[1], T[1]);
      sc2[0] = pack2<ACT>(sc[0], sc[0]);  // exact: E4M4 values are fp16 and bf16 numbers
      sc2[1] = pack2<ACT>(sc[1], sc[1]);
      wgmma_wait<1>();
#pragma unroll
      for (int i = 0; i < 4; ++i) frag_from_pairs<ACT>(T, sc2, pair_base, i, a0[i]);
      const uint64_t d = sync_step(s);
      issue(a0, d, 0);
#pragma unroll
      for (int i = 0; i < 4; ++i) frag_from_pairs<ACT>(T, sc2, pair_base, 4 + i, a1[i]);
      issue(a1, d, 4);
      refill();
    }
  } else if constexpr (KB >= 4) {
    // Half steps: the fragments of sub-steps 0..3 and 4..7 live in a0 and a1 (32 registers, not 64)
    // and each half is its own wgmma group. a0 is rewritten only after wgmma_wait<1> retired the
    // previous step's first half; a1 after the wait<0> of sync_step retired its second half. The
    // decode of the first half overlaps the previous second half, the decode of the second half
    // this step's first half. (PTX: the A registers of an in-flight wgmma must not be written.)
    uint32_t a0[4][4], a1[4][4];
    for (int s = sb32; s < se32; ++s) {
      uint32_t wc[2][KB], E[2][4], O[2][4];
      float sc[2];
      next_weights(s, wc, sc);
      block_offsets<KB>(wc[0], E[0], O[0]);
      block_offsets<KB>(wc[1], E[1], O[1]);
      wgmma_wait<1>();
#pragma unroll
      for (int i = 0; i < 4; ++i) frag_from_offsets<ACT, true>(E, O, sc, cb_base, i, a0[i]);
      const uint64_t d = sync_step(s);
      issue(a0, d, 0);
#pragma unroll
      for (int i = 0; i < 4; ++i) frag_from_offsets<ACT, true>(E, O, sc, cb_base, 4 + i, a1[i]);
      issue(a1, d, 4);
      refill();
    }
  } else {
    // k <= 3: the byte tables give all 8 fragments at once (W), so whole steps alternate between
    // two arrays: the one a step writes was last read two steps back, retired by the previous
    // step's wgmma_wait<0>; the decode of a step overlaps the previous step's wgmma.
    auto step = [&](int s, uint32_t(&a)[tcv::kMmasPerStep][4]) {
      uint32_t wc[2][KB];
      float sc[2];
      next_weights(s, wc, sc);
      uint32_t W[2][4][4];
      table_pairs<ACT, KB>(wc, sc, cbr, W);
#pragma unroll
      for (int i = 0; i < tcv::kMmasPerStep; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r) a[i][r] = W[r & 1][tcv::bt_pair_r(i, r)][tcv::bt_pair_c(i)];
      issue(a, sync_step(s), 0);
      refill();
    };
    uint32_t fa[2][tcv::kMmasPerStep][4];
    for (int s = sb32; s < se32; s += 2) {
      step(s, fa[0]);
      if (s + 1 < se32) step(s + 1, fa[1]);
    }
  }
  wgmma_wait<0>();
  cp_async_wait<0>();

  // acc[4 t + r]: row (r < 2 ? n_lo : n_hi), token tok0 + 8 t + 2 q + r % 2.
  if (sb == 0 && se == steps) {
#pragma unroll
    for (int t = 0; t < MN / 8; ++t)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int64_t n = r < 2 ? n_lo : n_hi;
        const int token = tok0 + 8 * t + 2 * q + (r & 1);
        if (n < N && token < M) C[token * N + n] = Tr::from_float(acc[4 * t + r]);
      }
  } else if (sch.splits > 0) {
    // Slice cta % splits of a tile cut into equal slices: its partial in [slice][M][N].
    float* part = sch.partials + (cta % sch.splits) * (static_cast<int64_t>(M) * N);
#pragma unroll
    for (int t = 0; t < MN / 8; ++t)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int64_t n = r < 2 ? n_lo : n_hi;
        const int token = tok0 + 8 * t + 2 * q + (r & 1);
        if (n < N && token < M) part[token * N + n] = acc[4 * t + r];
      }
  } else {
    // Stream-K, a shared tile: the whole MN x 128 partial into slot 0 (segment starts inside the tile) or 1.
    float* part = sch.partials + (2 * cta + sched_slot(sb)) * (MN * kTcwRows);
    const int row = 16 * warp + g;
#pragma unroll
    for (int t = 0; t < MN / 8; ++t)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        part[(8 * t + 2 * q + (r & 1)) * kTcwRows + row + 8 * (r >> 1)] = acc[4 * t + r];
  }
#if KBIT_TCW_MBAR_SK
  if constexpr (!MB)
#endif
    __syncthreads();  // every warp is done with this segment's stages before the next one's copies
  }  // segments
#else
  (void)Ap, (void)C, (void)M, (void)w, (void)sch;
  __trap();  // not built for sm_90a: launch_tcw refuses before launching
#endif
}

}  // namespace kbit::gpu::detail
