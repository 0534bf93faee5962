// grouped_tcw (MoeKernel::grouped_tcw): tcw's wgmma step loop (tcw_common.cuh) over MoE work
// items, sm_90a only; dispatch and its measurements: docs/kernels.md, docs/perf-notes.md
// ("grouped_tcw").
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <type_traits>

#include "kbit/tcw_sched.h"
#include "tcw_common.cuh"

namespace kbit::gpu::detail {

// Grouped (MoE) form, grouped_tcw: CTA blockIdx.x = item * groups + group multiplies RT (1 or 2,
// grouped_tcw_rt) 128-row tiles of its item's expert, one after another, by that expert's next
// <= MN routed rows over all K (no split; the items x row tiles fill the GPU at the prefill sizes
// it is dispatched to). Item-major, so the CTAs that
// share an item's activation tiles run together and read them from L2; with the row tile as the
// slower index (the first form) every row tile re-read all routed rows from DRAM: ncu at GLM-4.7-
// Flash experts.down M = 4096 measured 800 MB of DRAM traffic for ~220 MB of data, L2 hit rate 44%
// (bench/results/2026-11-25-h100-gtcworder). The activations are the
// 8-token-tile permute of all routed rows (tcw_permute_kernel<ACT, kTables, 8>, one pass over A);
// an item's rows start at any row, so each step's tile is gathered per token: the 16-byte chunk c
// of row r lies at uint4 ((r / 8) * steps + s) * 128 + 8 c + r % 8 of the permute and goes to
// tile byte (n / 8) * kTcwSbo + c * kTcwLbo + (n % 8) * 16 for the item's token n; tokens past
// the item's rows are zero-filled. No PDL (MoeArgs::pdl is for decode sizes; this kernel ignores it).

// Whether items run at their own width (below). Not at k = 2 with 64-row tiles: there the width
// copies took the kernel from 123 registers (two CTAs per SM) to 155, and bounded back to 128 it ran
// 1-4% slower than one width (GLM-4.7-Flash experts at M = 2048, Qwen3-Coder-Next at M = 4096;
// bench/results/2026-11-25-h100-gtcwwidths, rule2).
template <int KB, int MN>
constexpr bool kGroupedTcwWidths = MN >= 64 && !(KB == 2 && MN == 64);

// CTAs per SM the registers must allow: tcw's, and two for k = 2 with 64-row tiles, which ran at
// two per SM with 123 registers (ptxas) and would take 131 with the per-thread copy pointers below.
// KBIT_GTCW_MINB64 (bit k, k = 3..5; k = 2 holds two whatever it says): two also for the 64-token kernels at k = 3,
// 4 (the latter on the pair table) and 5, as tcw_kernel's kTcwMinBlocks for k = 3, 4 (k = 3, 4 since the forty-fourth
// session, k = 5 since the forty-fifth; measured on the H200 only, applied on the H100 too). ptxas (sm_90a): k = 4 on
// the pair table 127 registers (128 and 12 bytes spilled with two row tiles per CTA), k = 3 128 with 8 bytes spilled
// (20 with two row tiles), k = 5 128 with 56 bytes spilled (20 with two row tiles: tcw_kernel's dense k = 5 at two per
// SM lost with 60-88, but here it won, bench/results/2026-11-28-h200-s45first); k = 4 without the pair table stays at
// one. What they measured: grouped_tcw_tile (lib/kbit/moe_sched.h).
#ifndef KBIT_GTCW_MINB64
#define KBIT_GTCW_MINB64 0x38
#endif
constexpr bool grouped_tcw_two_per_sm64(int bits, bool pairs) {
  return bits == 2 || (((KBIT_GTCW_MINB64 >> bits) & 1) && (bits != 4 || pairs));
}
template <int KB, int MN, bool PR>
constexpr int kGroupedTcwMinBlocks = MN == 64 && grouped_tcw_two_per_sm64(KB, PR) ? 2 : TcwCfg<MN>::kMinBlocks;

template <Act ACT, int KB, int MN, bool PR, int RT>
__global__ void __launch_bounds__(kTcwThreads, kGroupedTcwMinBlocks<KB, MN, PR>)
    grouped_tcw_kernel(const uint4* __restrict__ Ap, typename ActTraits<ACT>::T* __restrict__ C,
                       const int32_t* __restrict__ offsets, TiledView w) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Tr = ActTraits<ACT>;
  using Cfg = TcwCfg<MN, true>;
  extern __shared__ __align__(128) char tiles[];
  __shared__ TcwSmem sm;
  stage_codebook<KB>(w.codebook, sm.cb);
  stage_scales(sm.scale);
  const int64_t N = w.N, K = w.K;
  const unsigned row_tiles = static_cast<unsigned>((N + kTcwRows - 1) / kTcwRows);
  const unsigned groups = (row_tiles + RT - 1) / RT;  // of RT row tiles, the last one partial
  const unsigned rt_begin = blockIdx.x % groups * RT;
  // Its barriers also publish the codebook and scales staged above.
  const WorkItem item = find_work_item<kTcwThreads>(offsets, static_cast<int>(w.E), MN, static_cast<int>(blockIdx.x / groups));
  if (item.expert < 0) return;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const int64_t steps = tcw_steps(K), ktiles = k_tiles(K);
  const int row0 = item.row0, rows = item.rows;
  // The item's wgmma width: MN >> nsel tokens, the least power-of-two part of MN (>= 32) holding its
  // rows, so an expert's last, partial item does not multiply (and load) a whole MN-token tile.
  int nsel = 0;
  if constexpr (kGroupedTcwWidths<KB, MN>) nsel = grouped_item_width_shift(MN, rows);

  using T = typename Tr::T;
  const uint32_t cb_base = smem_addr(sm.cb);
  float cbr[KB <= 3 ? 1 << KB : 1];
  const uint32_t pair_base = PR ? smem_addr(tiles + Cfg::kSmem) + 4 * lane : 0u;
  // One copy of the copies, the step loop and the epilogue per width (a branch between wgmma groups
  // inside one loop makes ptxas serialize every wgmma: C7520).
  auto run = [&](auto width) {
    constexpr int NW = decltype(width)::value;
    // The thread's copies are the same each step but for the step's offset: token n = threadIdx.x
    // % NW (adjacent threads: adjacent tokens of one chunk) at chunks c0 + kCs j, so one source
    // pointer and one tile offset, advanced by constants. (The loop over i = threadIdx.x + 256 j with
    // n = i % NW, c = i / NW and the 64-bit source index per copy was 22% of the stall samples at
    // GLM-4.7-Flash experts.gate_up M = 4096, and it runs between the step's barrier and its wgmma.)
    static_assert(kTcwThreads % NW == 0 && NW % 16 == 0);
    constexpr int kCs = kTcwThreads / NW, kCopies = 16 / kCs;  // chunk stride, copies per step
    const unsigned n = threadIdx.x % NW, c0 = threadIdx.x / NW;
    const int r = row0 + min(static_cast<int>(n), rows - 1);  // in bounds also where zero-filled
    const uint4* src0 = Ap + (static_cast<int64_t>(r >> 3) * steps * 128 + 8 * c0 + (r & 7));
    char* dst0 = tiles + (n >> 3) * tcv::kTcwSbo + c0 * tcv::kTcwLbo + (n & 7) * 16;
    const bool valid = static_cast<int>(n) < rows;
    auto issue_tile = [&](int64_t s, int stage) {
      if (s < steps) {
        const uint4* src = src0 + s * 128;
        char* dst = dst0 + stage * Cfg::kStageBytes;
#pragma unroll
        for (int j = 0; j < kCopies; ++j) cp_async16(dst + j * kCs * tcv::kTcwLbo, src + 8 * kCs * j, valid);
      }
      cp_async_commit();
    };
#pragma unroll
    for (int e = 0; e < (KB <= 3 ? 1 << KB : 0); ++e) cbr[e] = sm.cb[e];
    // One row tile: the first tiles, the step loop, the epilogue (first: the CTA's first row tile).
    auto tile = [&](unsigned row_tile, bool first) {
      const int64_t n_lo = static_cast<int64_t>(row_tile) * kTcwRows + 16 * warp + g, n_hi = n_lo + 8;
#pragma unroll
      for (int st = 0; st < Cfg::kStages - 1; ++st) issue_tile(st, st);
      auto stage_pairs = [&] {  // as tcw_kernel: while the first weights are in flight, once per CTA
        if constexpr (PR) {
          if (first) {
            stage_pair_table<ACT>(sm.cb, reinterpret_cast<uint4*>(tiles + Cfg::kSmem));
            __syncthreads();
          }
        }
      };
      float acc[NW / 2];
      tcw_steps_loop<ACT, KB, MN, PR, NW>(acc, w.packed + item.expert * w.expert_words(),
                                          w.absmax + item.expert * w.expert_absmax(), N, n_lo, n_hi, 0, steps, ktiles,
                                          sm, tiles, cbr, cb_base, pair_base, issue_tile, stage_pairs);
      // Epilogue: one pointer per lane (token 2 q, row n_lo), 8 tokens further per t; the four
      // stores of a t sit at constant offsets from it (tokens +0 / +1, rows +0 / +8). Indexed per
      // store with a 64-bit product, it took ~10% of the stall samples at GLM-4.7-Flash
      // experts.gate_up M = 4096 and ~20% at Qwen3-Coder-Next experts.down M = 4096 (4 steps per CTA;
      // bench/results/2026-11-25-h100-gtcwcopies, source); this form measured 1.030x (epi). Two other
      // forms made ptxas serialize wgmma (C7514, "non wgmma instructions reading accumulator
      // registers"; the PTX read acc only after the final wait): the pointer advanced in place
      // (out += 8 * N; the k = 3 kernels) and the outputs staged through shared memory for 16-byte
      // stores (16 to 40 of the 40 kernels, with or without fences and waits before it). Check
      // ptxas -v for C75xx after changing this.
      // acc[4 t + r]: row (r < 2 ? n_lo : n_hi), token 8 t + 2 q + r % 2 of the item.
      const bool ok_lo = n_lo < N, ok_hi = n_hi < N;
      T* const out0 = C + (static_cast<int64_t>(row0 + 2 * q) * N + n_lo);
      const int64_t N8 = 8 * N;
#pragma unroll
      for (int t = 0; t < NW / 8; ++t) {
        T* const out = out0 + t * N8;
        const int token = 8 * t + 2 * q;
        if (token < rows) {
          if (ok_lo) out[0] = Tr::from_float(acc[4 * t]);
          if (ok_hi) out[8] = Tr::from_float(acc[4 * t + 2]);
        }
        if (token + 1 < rows) {
          if (ok_lo) out[N] = Tr::from_float(acc[4 * t + 1]);
          if (ok_hi) out[N + 8] = Tr::from_float(acc[4 * t + 3]);
        }
      }
    };
    // RT > 1: the CTA's row tiles one after another over the same activation tiles (read again,
    // from L2), so the prologue above (work item, codebook, scales, pair table) is paid once.
    if constexpr (RT == 1) {
      tile(rt_begin, true);
    } else {
      for (int i = 0; i < RT && rt_begin + i < row_tiles; ++i) {
        if (i > 0) __syncthreads();  // both warpgroups' wgmma are done with the stages
        tile(rt_begin + i, i == 0);
      }
    }
  };
  if constexpr (kGroupedTcwWidths<KB, MN>) {
    if (nsel > 0) {
      if constexpr (MN >= 128) {
        if (nsel > 1) {
          if constexpr (MN >= 256) {
            if (nsel > 2) return run(std::integral_constant<int, MN / 8>{});
          }
          return run(std::integral_constant<int, MN / 4>{});
        }
      }
      return run(std::integral_constant<int, MN / 2>{});
    }
  }
  run(std::integral_constant<int, MN>{});
#else
  (void)Ap, (void)C, (void)offsets, (void)w;
  __trap();  // not built for sm_90a: moe_linear refuses grouped_tcw before launching
#endif
}

namespace {

// grouped_tcw's token tile: grouped_tcw_tile (lib/kbit/moe_sched.h, the measurements there) from the mean routed
// rows per active expert (moe_mean_rows, as dispatch; not the caller's hint, which kbit-bench sets to the maximum),
// with the 64-token rule where grouped_tcw_mn64 says (KBIT_GTCW_MN64, default 1; 0 restores the previous rule and
// dispatch threshold). KBIT_GTCW_MN (environment, for A/B runs in one binary) forces one tile of 32, 64, 128 or 256
// at every k, as grouped_tcw_force_mn does for tests.
#ifndef KBIT_GTCW_MN64
#define KBIT_GTCW_MN64 1
#endif
std::atomic<int> g_grouped_tcw_force_mn{0};  // grouped_tcw_force_mn (tests)
bool valid_mn(int mn) { return mn == 32 || mn == 64 || mn == 128 || mn == 256; }
bool mn64_on() {
  static const bool on = env_knob("KBIT_GTCW_MN64", KBIT_GTCW_MN64 != 0);
  return on;
}
int grouped_tcw_mn(int64_t total_rows, const TiledView& w) {
  if (const int forced = g_grouped_tcw_force_mn.load(std::memory_order_relaxed); forced != 0) return forced;
  static const int env_mn = [] {
    const int v = env_int("KBIT_GTCW_MN", 0);
    return valid_mn(v) ? v : 0;
  }();
  if (env_mn != 0) return env_mn;
  return grouped_tcw_tile(w.bits, grouped_tcw_mn64(w), moe_mean_rows(w.E, total_rows));
}

// 128-row tiles per CTA: 2 where K <= 512 (4 steps per CTA, so the prologue is a large part of
// a CTA's time), else 1. First measured with the count at run time (bench/results/2026-11-25-h100-
// gtcwcopies, epi: Qwen3-Coder-Next experts.down, K = 512, +1-10%; at K = 1536 / 2048, GLM-4.7-Flash
// experts and Qwen3 experts.gate_up, -7% to +5%), then as landed (rt, A/B/A/B against the build
// before): Qwen3 experts.down 1.068x geomean over M = 512..4096, k = 2..4 (1.012-1.103; k = 3,
// M = 4096 548 -> 497 us), the other 36 MoE rows (one tile per CTA) 0.996x (0.977-1.012).
int grouped_tcw_rt(const TiledView& w) { return tcw_steps(w.K) <= 4 && w.N > kTcwRows ? 2 : 1; }

// The 1D grid at token tile mn and rt row tiles per CTA: (at most) every work item times the
// groups of rt 128-row tiles.
int64_t grouped_tcw_ctas_at(int64_t total_rows, const TiledView& w, int mn, int rt) {
  return moe_max_items(w.E, total_rows, mn) * (((w.N + kTcwRows - 1) / kTcwRows + rt - 1) / rt);
}

// One launch of grouped_tcw at token tile mn (grouped_tcw_mn's, or the test hook's); with `resident`, no launch: the
// CTAs per SM its kernel holds at the dynamic shared memory it is launched with (grouped_tcw_resident).
struct GroupedLaunch {
  uint4* permuted;
  int mn;
  int* resident;
};

template <Act ACT, int KB, int MN, bool PR, int RT>
cudaError_t launch_grouped_t(const MoeArgs& a, const GroupedLaunch& g) {
  using T = typename ActTraits<ACT>::T;
  if (!g.resident) {
    const int64_t steps = tcw_steps(a.w.K);
    const int64_t rows16 = (a.total_rows + 7) / 8 * steps * (8 * kTileBytesPerToken / 16);
    if (cudaError_t e = launch_ex(tcw_permute_kernel<ACT, (KB <= 3 || PR), 8>, dim3(static_cast<unsigned>((rows16 + 255) / 256)),
                                  256, 0, a.stream, 1, false, static_cast<const T*>(a.A), g.permuted,
                                  static_cast<int>(a.total_rows), a.w.K, rows16);
        e != cudaSuccess)
      return e;
  }
  auto kern = grouped_tcw_kernel<ACT, KB, MN, PR, RT>;
  constexpr int bytes = tcw_smem_bytes<MN, PR, true>();
  if (cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes); e != cudaSuccess)
    return e;
  if (g.resident) return cudaOccupancyMaxActiveBlocksPerMultiprocessor(g.resident, kern, kTcwThreads, bytes);
  const int64_t ctas = grouped_tcw_ctas_at(a.total_rows, a.w, MN, RT);  // <= kGroupedTcwMaxCtas: moe_linear checked
  return launch_ex(kern, dim3(static_cast<unsigned>(ctas)), kTcwThreads, bytes, a.stream, 1, false, static_cast<const uint4*>(g.permuted),
                   static_cast<T*>(a.C), a.expert_offsets, a.w);
}

template <Act ACT, int KB, bool PR, int RT>
cudaError_t launch_grouped_mn(const MoeArgs& a, const GroupedLaunch& g) {
  switch (g.mn) {
    case 32: return launch_grouped_t<ACT, KB, 32, PR, RT>(a, g);
    case 64: return launch_grouped_t<ACT, KB, 64, PR, RT>(a, g);
    case 128: return launch_grouped_t<ACT, KB, 128, PR, RT>(a, g);
    default: return launch_grouped_t<ACT, KB, 256, PR, RT>(a, g);
  }
}

template <Act ACT, int KB, bool PR>
cudaError_t launch_grouped_rt(const MoeArgs& a, const GroupedLaunch& g) {
  return grouped_tcw_rt(a.w) == 2 ? launch_grouped_mn<ACT, KB, PR, 2>(a, g) : launch_grouped_mn<ACT, KB, PR, 1>(a, g);
}

template <Act ACT>
cudaError_t launch_grouped_k(const MoeArgs& a, const GroupedLaunch& g) {
  if (tcw_uses_pairs(a.w)) return launch_grouped_rt<ACT, 4, true>(a, g);
  return with_bits(a.w.bits, cudaErrorInvalidValue,
                   [&](auto kb) { return launch_grouped_rt<ACT, decltype(kb)::value, false>(a, g); });
}

cudaError_t launch_grouped_act(const MoeArgs& a, const GroupedLaunch& g) {
  return a.act == Act::f16 ? launch_grouped_k<Act::f16>(a, g) : launch_grouped_k<Act::bf16>(a, g);
}

}  // namespace

bool grouped_tcw_mn64(const TiledView& w) {
  return mn64_on() && grouped_tcw_mn64_rule(w.bits, grouped_tcw_two_per_sm64(w.bits, tcw_uses_pairs(w)));
}

int grouped_tcw_resident(const TiledView& w, Act act, int mn) {
  if (!valid_mn(mn)) return 0;
  MoeArgs a;
  a.w = w;
  a.act = act;
  int n = 0;
  if (launch_grouped_act(a, GroupedLaunch{nullptr, mn, &n}) != cudaSuccess) {
    (void)cudaGetLastError();  // a failed query is not the caller's error
    return 0;
  }
  return n;
}

void grouped_tcw_force_mn(int mn) { g_grouped_tcw_force_mn.store(valid_mn(mn) ? mn : 0, std::memory_order_relaxed); }
int grouped_tcw_token_tile(int64_t total_rows, const TiledView& w) { return grouped_tcw_mn(total_rows, w); }

int64_t grouped_tcw_ctas(int64_t total_rows, const TiledView& w) {
  return grouped_tcw_ctas_at(total_rows, w, grouped_tcw_mn(total_rows, w), grouped_tcw_rt(w));
}

// The workspace of grouped_tcw: the 8-token-tile permute of all routed rows.
size_t grouped_tcw_workspace_bytes(int64_t total_rows, const TiledView& w) {
  return (static_cast<size_t>((total_rows + 7) / 8) * tcw_steps(w.K) * 8 * kTileBytesPerToken + 255) / 256 * 256;
}

cudaError_t launch_grouped_tcw(const MoeArgs& a) {  // moe_linear has checked tcw_available(), the grid and the workspace
  return launch_grouped_act(a, GroupedLaunch{static_cast<uint4*>(a.workspace), grouped_tcw_mn(a.total_rows, a.w), nullptr});
}

}  // namespace kbit::gpu::detail
