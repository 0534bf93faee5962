// What tcw.cu (the dense wgmma kernels) and grouped_tcw.cu (their MoE form) share: the CTA shape
// and pipeline configuration, the activation pre-pass (tcw_permute_kernel) and the step loop
// (tcw_steps_loop). The design is described at the top of tcw.cu.
#pragma once

#include "common.cuh"
#include "kbit/tcv_map.h"
#include "launch.h"
#include "tcv_decode.cuh"
#include "timeline.cuh"
#include "wgmma_rs.cuh"

namespace kbit::gpu::detail {

namespace {
constexpr int kStepK = tcv::kStepK;       // 128 k per step
constexpr int kTileBytesPerToken = kStepK * 2;

// Two warpgroups per CTA, each owning 64 weight rows, both reading the same activation tile. Three
// at MN <= 64 (168 registers fit 384 threads) measured slower on the H100 (Llama-3-70B gate_up
// M = 32: 282 vs 262 us; bench/results/2026-11-25-h100-tcw).
constexpr int kTcwThreads = 256;
constexpr int kTcwRows = 128;  // weight rows per CTA

// The 64-token tiles under LinearArgs::pdl. KBIT_TCW_PDL64: 0 keeps PDL to the 32-token tiles; 1
// builds the 64-token tiles with the PDL instructions too and launches them with LinearArgs::pdl where
// the main grid is at most one CTA per SM; 2 (the default) does so at every grid size.
// KBIT_TCW_PDL64_BITS: the widths k whose 64-token main kernels take it, bit k set (default all). At
// M = 33..64, tcw_pdl against the old default over the dense catalogue shapes (H100, geomeans per M;
// no row below 0.98x): k = 4 1.19-1.21x, k = 5 1.17-1.19x (bench/results/2026-11-27-h100-tcwpdl64land),
// k = 3 1.20-1.23x (-tcwpdl64k3) and k = 2 1.22-1.24x (-tcwpdl64k2sk), k = 2 and 3 with
// tcw_pads' padding in the measured builds (tcw.cu; without it their one-wave per-tile grids
// lost up to 0.66x) and k = 2's stream-K plans launched plainly (until -occfix).
// Since KBIT_TCW_PDL_BIG (below) both knobs also govern the 128- and 256-token tiles: KBIT_TCW_PDL64 = 0
// leaves them without PDL only where KBIT_TCW_PDL_BIG = 0 too, 1 launches them under PDL only on grids of at
// most one CTA per SM, and KBIT_TCW_PDL64_BITS picks their widths as well. (Old "off" arms, e.g.
// bench/scripts/h100_tcwpdl64_land.sh's -DKBIT_TCW_PDL64=0, need -DKBIT_TCW_PDL_MAXM=64 -DKBIT_TCW_PDL_BIG=0
// as well to rebuild the behaviour before the thirty-third session.)
#ifndef KBIT_TCW_PDL64
#define KBIT_TCW_PDL64 2
#endif
#ifndef KBIT_TCW_PDL64_BITS
#define KBIT_TCW_PDL64_BITS 0x3C
#endif
// Above M = 64. KBIT_TCW_PDL_MAXM: the largest M whose plans launch under LinearArgs::pdl (64: none above
// M = 64, whatever the token tile, as before the thirty-third session; in any case only the plans whose main
// kernels carry the PDL instructions, tcw_launch_pdl in tcw.cu). KBIT_TCW_PDL_BIG: the 128- and 256-token
// tiles' kernels carry them too (tcw_kernel requests its first weights before the wait; their plain launches
// measured 0.997-1.006x geomean against main's SASS). H100, bench/results/2026-11-27-h100-pdlbig, same call,
// dense catalogue, k = 2 and 4: tcw_pdl against MAXM = 64, BIG = 0 1.09-1.16x geomean per (M, k) at
// M = 96..256 (rows 0.96-1.38x), 1.05x at M = 1024; with MAXM alone (64-token tiles above M = 64) only k = 4
// gained, 1.04-1.08x. choose_kernel's PDL rules for M = 65..576 count on both (tcw_pdl_above64).
#ifndef KBIT_TCW_PDL_MAXM
#define KBIT_TCW_PDL_MAXM (1 << 30)
#endif
#ifndef KBIT_TCW_PDL_BIG
#define KBIT_TCW_PDL_BIG 1
#endif
// The token tiles whose pre-pass and fixup kernels carry the PDL instructions (shared by every k: the
// instructions do nothing in a launch without the PDL attribute).
template <int MN>
constexpr bool kTcwPdlTile = MN == 32 || (KBIT_TCW_PDL64 != 0 && MN == 64) || (KBIT_TCW_PDL_BIG != 0 && MN >= 128);
// The (token tile, k) whose main kernels (per-tile and stream-K) carry them and are launched with
// LinearArgs::pdl. (k = 2's 64-token stream-K grids were once kept off PDL: they lost up to 0.64x
// under it, Llama-3-70B gate_up M = 64 193 -> 300 us, bench/results/2026-11-27-h100-tcwpdl64k2, while
// the plan counted 1 CTA per SM for a kernel that holds 2, so a PDL grid piled onto some SMs; with
// the count right they gain 1.00-1.02x under PDL, -occfix.)
template <int MN, int KB>
constexpr bool kTcwPdlMain = MN == 32 || (kTcwPdlTile<MN> && ((KBIT_TCW_PDL64_BITS >> KB) & 1) != 0);
// Whether tcw_kernel of a kTcwPdlMain tile requests its first weight step before the PDL wait (else after
// its prologue, where the tiles without PDL request it). KBIT_TCW_LATE_FETCH256 (experiment knob): the widths
// k, bit k set, whose 256-token kernel keeps the late request although it carries the PDL instructions. 0x08
// (k = 3, the default) measured 1.07-1.09x on Qwen3 dense.gate_up at M = 224, 256 (the early request's SASS lost
// 0.92x there, plain launches too) and 1.003-1.007x geomean over the dense catalogue (bench/results/2026-11-27-
// h100-pdl512, -late3); on since kbit-verify --full (plain and --pdl) at M = 256..1024 and memcheck, racecheck and
// synccheck of a build with it passed (-late3san). 0: every PDL 256-token kernel requests early.
#ifndef KBIT_TCW_LATE_FETCH256
#define KBIT_TCW_LATE_FETCH256 0x08
#endif
template <int MN, int KB>
constexpr bool kTcwEarlyFetch = kTcwPdlMain<MN, KB> && !(MN == 256 && ((KBIT_TCW_LATE_FETCH256 >> KB) & 1) != 0);

// The K slices of a per-tile plan as one thread-block cluster: where a plan splits K into 2..KBIT_TCW_CLUSTER
// slices, with at least KBIT_TCW_CLUSTER_MINB bytes of fp32 partials, and the GPU holds every tile's cluster at
// once, tcw_kernel<..., CL = true> runs the slices of a tile as one cluster along grid.z; they sum their
// accumulators through distributed shared memory, in slice order (the sum tcw_reduce_kernel forms, bit for
// bit), so the partials' traffic and the reduction's launch go. H100, tcw_pdl (bench/results/2026-11-27-h100-
// cluster, -cluster2, main against arms in one call): plans of 2 slices 1.09x geomean (Llama-3-8B q/o_proj
// M = 512 1.27-1.30x, Qwen3 q_proj M = 256 1.18-1.20x, Llama-3-70B o/q_proj M = 256 1.13-1.16x), but tiny plans
// of 2 steps per CTA lost (Qwen3 shared_expert.down M = 33..128, 2 MB of partials or less: 0.93-0.99x); with
// clusters of up to 8 the plans of 8 slices lost 0.84-0.96x (a cluster's launch and barriers against CTAs of 2
// steps). 0 turns them off.
#ifndef KBIT_TCW_CLUSTER
#define KBIT_TCW_CLUSTER 2
#endif
#ifndef KBIT_TCW_CLUSTER_MINB
#define KBIT_TCW_CLUSTER_MINB 4.0e6
#endif
// KBIT_TCW_TILE192: 1 (the default), tcw's plans may take a 192-token tile (tcw_kernel and the stream-K kernel at
// MN = 192; tcw_choose_tile's `mid` candidate, lib/kbit/tcw_sched.h), chosen where it needs no more token tiles
// than 256 tokens do (M = 129..192, 257..384, 513..576), so a step multiplies fewer padding tokens; 0, the tiles
// of 32, 64, 128 and 256 tokens only. H100, tcw_pdl, main / this in one call (bench/results/2026-11-28-h100-
// tile192; the dense shapes but Llama-3-70B's, M = 160..576, k = 2..5, two reps): the 188 rows whose tile moved
// 1.10x geomean (0.97-1.20x; from 256 tokens 1.04-1.18x), every (M, k) 1.07-1.14x, the other rows 0.998x.
// ptxas: 203-240 registers at 192 tokens, no spills (one CTA per SM, as at 256).
#ifndef KBIT_TCW_TILE192
#define KBIT_TCW_TILE192 1
#endif
// KBIT_TCW_TILE160, KBIT_TCW_TILE224: 1 (the default), 160- and 224-token tiles too, by the same rule
// (tcw_choose_tile's `mid` bits 0 and 2), each step priced linearly between the fitted 128- and 256-token costs:
// the least tile of as many token tiles as 256 wins, so 160 takes M = 129..160 and 257..320, 224 some rows at
// 193..224 and 385..448. H100, tcw_pdl, main / w160 / w224 in one call (bench/results/2026-11-28-h100-
// tilewidths; the dense shapes but Llama-3-70B's, M = 160..448, k = 2, 4, one rep): the 77 rows whose tile
// moved to 160 1.07x geomean (0.97-1.12x), the 28 moved from 256 to 224 1.04x (0.96-1.08x), the other rows
// 1.000x. ptxas: 183-254 registers at 160 and 224 tokens, no spills.
#ifndef KBIT_TCW_TILE160
#define KBIT_TCW_TILE160 1
#endif
#ifndef KBIT_TCW_TILE224
#define KBIT_TCW_TILE224 1
#endif
constexpr unsigned kTcwMidMask =
    (KBIT_TCW_TILE160 ? 1u : 0u) | (KBIT_TCW_TILE192 ? 2u : 0u) | (KBIT_TCW_TILE224 ? 4u : 0u);
// KBIT_TCW_TIMELINE (diagnostic knob, default 0): tcw_kernel's warps stamp their SM clock at six points of each
// step into the buffer tcw_timeline_set gives (lane 0 of each warp; the first kTcwTlSteps steps of the first
// ctas CTAs; the layout in launch.h), and each CTA its SM, and its globaltimer and SM clock at start and end. The
// events of a step: 0 its top; 1 its weights decoded to nibbles or offsets (the load's wait included); 2 after
// wgmma_wait<1>; 3 the first half's fragments built; 4 after sync_step (the stage's copy and the previous wgmma
// retired); 5 the second half issued.
// k <= 3 stamps 0, 3 (its whole-step decode), 4, 5 and leaves 1 and 2 zero. For a per-warp timeline of a step's
// chains (docs/perf-notes.md: a step at 256 tokens costs 1.55 us against 1.12 us of tensor work); off, the
// kernels are byte-identical to a build without it.
#ifndef KBIT_TCW_TIMELINE
#define KBIT_TCW_TIMELINE 0
#endif
static_assert(kTcwTlWarps == kTcwThreads / 32, "the timeline's layout (launch.h) has a row per warp");
#if KBIT_TCW_TIMELINE
// [cta][warp][step][event] stamps, then [cta][6] (smid, globaltimer at start and end, low 32 bits; steps run; SM
// clock at start and end).
// Kept in registers from the kernel's start (KBIT_TCW_TL_BEGIN; timeline.cuh): until the forty-first session each
// stamp re-read these globals, a global load per stamp inside the measured intervals (the thirty-seventh session's
// timeline, bench/results/2026-11-28-h100-timeline, was taken so).
static __device__ uint32_t* g_tcw_tl = nullptr;
static __device__ int g_tcw_tl_ctas = 0;
using TcwTl = Timeline<kTcwTlWarps, kTcwTlSteps, kTcwTlEvents, kTcwTlCtaWords>;
#define KBIT_TCW_TL_BEGIN                                                                                  \
  const TcwTl tcw_tl = TcwTl::make(g_tcw_tl, g_tcw_tl_ctas,                                               \
                                   static_cast<int>(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)))
#define KBIT_TCW_TL(step, ev) tcw_tl.stamp((step), (ev))
#define KBIT_TCW_TL_CTA(i, v) tcw_tl.word((i), (v))
#else
#define KBIT_TCW_TL_BEGIN ((void)0)
#define KBIT_TCW_TL(step, ev) ((void)0)
#define KBIT_TCW_TL_CTA(i, v) ((void)0)
#endif
constexpr int kTcwMaxCluster = 8;  // the portable cluster size: the CL kernel sums at most this many slices
static_assert(KBIT_TCW_CLUSTER >= 0 && KBIT_TCW_CLUSTER <= kTcwMaxCluster, "KBIT_TCW_CLUSTER: 0 or 2..8");
// The row stride, in floats, of the accumulator tile the slices of a cluster exchange: 132 puts the four
// token rows a warp's fragment store touches (2 q apart) on disjoint banks.
constexpr int kTcwRedStride = kTcwRows + 4;

// tcw_kernel's activation stages through one thread's bulk copies counted by per-stage mbarriers
// (full: the copy landed; empty: every warp's wgmma of the step that read the stage is done) instead
// of every thread's cp.async and a CTA barrier per step, so the two warpgroups may drift apart and
// keep the tensor pipe fed (ncu at M = 1024: barrier stalls first, the pipe 68% busy; docs/perf-notes.md).
// KBIT_TCW_MBAR: the smallest token tile it applies to (32, 64, 128 or 256; 0 off). Default 128, with
// three stages at the 256-token tiles (KBIT_TCW_STAGES256), where it was measured against the cp.async
// form on the H100: tcw at M = 256 and 1024 (two stages there before), geomeans per (M, k) 1.06-1.17x,
// lowest row 0.97x (Llama-3-70B gate_up M = 1024 k = 4 1810 -> 1544 us; bench/results/2026-11-27-
// h100-occfix, -s28land/big); at M = 128 (three stages in both forms) k = 2 1.08x, k = 4 1.03x, lowest
// row 0.99x (-s28land/m128). At 32- and 64-token tiles only verified (mb32, -s28first: at M = 1024 it
// was 1.00x with two stages at 256). The stream-K kernel's form is KBIT_TCW_MBAR_SK's (below; its stages
// follow KBIT_TCW_STAGES256 too).
#ifndef KBIT_TCW_MBAR
#define KBIT_TCW_MBAR 128
#endif
template <int MN>
constexpr bool kTcwMbar = KBIT_TCW_MBAR != 0 && MN >= KBIT_TCW_MBAR;
// KBIT_TCW_MBAR_SK: the stream-K kernel's stages on the same bulk copies and mbarriers, over the CTA's
// whole range of steps (one step counter across segments: no pipeline refill and no CTA barrier at a
// segment's end); the smallest token tile it applies to (0 off). Default 128. Measured on the H100
// against the cp.async form (bench/results/2026-11-27-h100-tcwmbarsk, from 64-token tiles up): the
// stream-K plans (Llama-3-70B and -8B gate_up, GLM shared_experts.gate_up) gained 1.03-1.27x at M = 128
// and 256 (Llama-3-70B gate_up M = 256 k = 2 439 -> 346 us, k = 4 412 -> 364); at 64-token tiles k = 2
// lost 0.80-0.89x: the mbarrier form takes k = 2's kernel from 127 to 156 registers, so an SM holds one
// CTA instead of two (tcw_slots then plans for one).
#ifndef KBIT_TCW_MBAR_SK
#define KBIT_TCW_MBAR_SK 128
#endif
template <int MN>
constexpr bool kTcwMbarSK = KBIT_TCW_MBAR_SK != 0 && MN >= KBIT_TCW_MBAR_SK;
// The activation stages of tcw's 256-token tiles (3 fit with the k = 4 pair table: 3 x 64 KB + 32 KB +
// the static 2.3 KB within the 227 KB opt-in; the mbarrier form starts the copy of step s + 1 only
// after step s's wgmma are issued, so 2 stages hide less of it). grouped_tcw keeps 2 (TcwCfg's G:
// 3 stages there were not measured).
#ifndef KBIT_TCW_STAGES256
#define KBIT_TCW_STAGES256 3
#endif

// G: grouped_tcw's kernel.
template <int MN, bool G = false>
struct TcwCfg {
  static constexpr int kStages = MN >= 256 ? (G ? 2 : KBIT_TCW_STAGES256) : 3;
  static constexpr int kStageBytes = MN * kTileBytesPerToken;
  static constexpr int kSmem = kStages * kStageBytes;
  static constexpr int kMinBlocks = MN <= 32 ? 2 : 1;
};
// The CTAs per SM that tcw_kernel's and tcw_streamk_kernel's registers must allow (__launch_bounds__):
// TcwCfg's, and two for the 64-token kernels of the widths in KBIT_TCW_MINB64 (bit k; k = 4 only on the pair
// table, PR), so that an SM holds two CTAs (16 warps) instead of one; tcw_slots then plans for two where a
// CTA keeps >= 6 steps. ptxas: k = 4 on the pair table 130 / 143 -> 123 / 128 registers (tcw_kernel /
// stream-K), no spills; k = 3 128 / 135 -> 123 / 128, the stream-K kernel spilling 48 bytes. On the H100:
// - k = 4 (bench/results/2026-11-27-h100-minb64, -minb64land): tcw 1.054-1.073x geomean at M = 33..64, up to
//   1.31x (Llama-3-70B mlp.down M = 33 101.8 -> 77.5 us);
// - k = 3 (-occ2, -occ2land): 1.036-1.047x at M = 33..64, up to 1.23x (Llama-3-70B mlp.down M = 48 109.9 ->
//   89.6 us);
// - k = 5 lost, 0.68-0.95x (60 / 88 bytes spilled), and on the H200 too, 0.823x geomean over 54 dense rows at
//   M = 40, 64 (0.68-0.98; bench/results/2026-11-28-h200-s45t5), though grouped_tcw's k = 5 kernels won there at two
//   per SM; k = 4 without the pair table would spill 24 / 44 bytes (not measured);
// - three CTAs per SM at 32 tokens lost, 0.79-0.99x geomean (80 registers, 24-268 bytes spilled; -occ2).
// k = 2's 64-token kernels (120 / 127 registers) hold two without the bound.
#ifndef KBIT_TCW_MINB64
#define KBIT_TCW_MINB64 0x18
#endif
template <int KB, int MN, bool PR>
constexpr int kTcwMinBlocks = MN == 64 && ((KBIT_TCW_MINB64 >> KB) & 1) && (KB != 4 || PR) ? 2 : TcwCfg<MN>::kMinBlocks;

struct TcwSmem {
  alignas(256) float cb[32];
  float scale[256];
};

// The per-stage mbarriers of tcw's bulk-copied stages (KBIT_TCW_MBAR, KBIT_TCW_MBAR_SK), in shared
// memory: full(st) completes when thread 0's copy of stage st has landed (mbar_arrive_expect_tx, then
// bulk_copy_g2s on it); empty(st) when every warp has released it (one arrival per warp, after retiring
// its wgmma that read it).
template <int S>
struct TcwStageBars {
  uint64_t bar[2 * S];  // full[S], then empty[S]
  __device__ uint32_t full(int st) { return smem_addr(&bar[st]); }
  __device__ uint32_t empty(int st) { return smem_addr(&bar[S + st]); }
  // Thread 0, before its first copy; the other threads use them after a CTA barrier.
  __device__ void init() {
#pragma unroll
    for (int st = 0; st < S; ++st) {
      mbar_init(full(st), 1);                  // thread 0's arrive.expect_tx
      mbar_init(empty(st), kTcwThreads / 32);  // one arrival per warp
    }
    mbar_init_fence();
  }
};

__host__ __device__ inline int64_t tcw_steps(int64_t K) { return (K + kStepK - 1) / kStepK; }

// Dynamic shared memory: the activation stages, then the pair table (PR).
template <int MN, bool PR, bool G = false>
constexpr int tcw_smem_bytes() { return TcwCfg<MN, G>::kSmem + (PR ? kPairTableBytes<4> : 0); }
}  // namespace

// The step loop of one (row tile, token tile) over steps sb .. se - 1, used by grouped_tcw_kernel (tcw_kernel and
// tcw_streamk_kernel keep their inline copies of it: through this function ptxas scheduled them
// differently, sass_compare DIFF, and their SASS is the one measured).
// On entry the codebook and scales are staged (cbr, cb_base) and issue_tile(s, stage) -- cp.async,
// one commit group per call, nothing copied for s >= se -- has requested the activation tiles of
// steps sb .. sb + kStages - 2 into stages 0 .. kStages - 2. `packed` / `absmax`: the weights this
// CTA multiplies (one expert's in grouped_tcw_kernel); rows n_lo and n_hi are this lane's.
// after_fetch() runs once the first step's weights are requested (the pair table is staged there).
// The wgmma multiply NW <= MN tokens (grouped_tcw: an item's width; the stages keep MN's layout).
// Returns acc (token-major fragments, see the epilogues) with every wgmma and copy retired.
template <Act ACT, int KB, int MN, bool PR, int NW, class IssueTile, class AfterFetch>
__device__ __forceinline__ void tcw_steps_loop(float (&acc)[NW / 2], const uint32_t* packed, const uint8_t* absmax,
                                               int64_t N, int64_t n_lo, int64_t n_hi, int64_t sb, int64_t se,
                                               int64_t ktiles, const TcwSmem& sm, char* tiles,
                                               const float (&cbr)[KB <= 3 ? 1 << KB : 1], uint32_t cb_base,
                                               uint32_t pair_base, IssueTile&& issue_tile, AfterFetch&& after_fetch) {
  using Cfg = TcwCfg<MN, true>;
  const int q = threadIdx.x % 4;
  // The lane's block (step s: k-tile 2 s + q / 2, half q % 2) of rows n_lo and n_hi.
  const bool row_ok[2] = {n_lo < N, n_hi < N};
  const uint32_t* pw[2];
  const uint8_t* pa[2];
  block_pair_pointers<KB>(packed, absmax, N, n_lo, n_hi, q, sb, row_ok, pw, pa);
  const int64_t w_step = 2 * N * kBlocksPerTile * KB, a_step = 2 * N * kBlocksPerTile;
  // The words of the next step (wn), and at k = 3 of the one after it too (wn2). ptxas places the
  // fetch, written at the top of a step, at the end of the loop body (after the second half's
  // wgmma), so the next step's first decode waits on it (14.5% of the stall samples at GLM-4.7-Flash
  // experts.gate_up M = 4096, k = 4; bench/results/2026-11-25-h100-gtcwcopies, source-after).
  // Fetched two steps ahead at every k (prefetch2, A/B/A/B over 48 MoE rows), k = 3 gained 1.017x
  // geomean over its 16 rows (0.990-1.098) while k = 2 and 4 lost (0.987x, 0.984x: more registers,
  // a copy per word per step).
  constexpr bool kAhead2 = KB == 3;
  uint32_t wn[2][KB] = {}, wn2[2][KB] = {};  // fetch_block_pair keeps them on skipped blocks
  uint8_t sn[2], sn2[2];
  // 32-bit step indices in the loops (steps < 2^31 for any K < 2^38): 64-bit compares cost two
  // integer instructions each, on the pipe the decode loads most.
  const int sb32 = static_cast<int>(sb), se32 = static_cast<int>(se), ktiles32 = static_cast<int>(ktiles);
  auto fetch = [&](int step, uint32_t(&w)[2][KB], uint8_t(&a)[2]) {
    fetch_block_pair<KB>(step < se32 && 2 * step + q / 2 < ktiles32, row_ok, pw, pa, w_step, a_step, w, a);
  };
#pragma unroll
  for (int r = 0; r < NW / 2; ++r) acc[r] = 0.0f;

  // Per step: wait for its activation tile and for the previous step's wgmma, barrier, start the
  // copy of a later tile into the stage the previous step used, issue wgmma. Sub-step i of a stage
  // starts 2 i core-matrix columns in: descriptor + 16 i (the address field counts 16 bytes).
  int stage = 0;  // of step s
  auto sync_step = [&](int64_t s) -> uint64_t {
    cp_async_wait<Cfg::kStages - 2>();  // this thread's copies of step s landed
    fence_proxy_async_smem();           // ... and are visible to wgmma's reads
    wgmma_wait<0>();                    // step s - 1's wgmma are done with their tile and registers
    __syncthreads();
    issue_tile(s + Cfg::kStages - 1, stage == 0 ? Cfg::kStages - 1 : stage - 1);
    const uint64_t d = tcv::tcw_desc(smem_addr(tiles + stage * Cfg::kStageBytes));
    stage = stage + 1 == Cfg::kStages ? 0 : stage + 1;
    return d;
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
    for (int r = 0; r < NW / 2; ++r) fence_operand(acc[r]);
    wgmma_fence();
#pragma unroll
    for (int i = 0; i < I; ++i) wgmma_rs<ACT, NW>(acc, a[i], d + static_cast<uint64_t>(16 * (i0 + i)));
    wgmma_commit();
#pragma unroll
    for (int r = 0; r < NW / 2; ++r) fence_operand(acc[r]);
  };
  auto next_weights = [&](int s, uint32_t(&wc)[2][KB], float(&sc)[2]) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
#pragma unroll
      for (int b = 0; b < KB; ++b) {
        wc[j][b] = wn[j][b];
        if constexpr (kAhead2) wn[j][b] = wn2[j][b];
      }
      sc[j] = sm.scale[sn[j]];
      if constexpr (kAhead2) sn[j] = sn2[j];
    }
    if constexpr (kAhead2) fetch(s + 2, wn2, sn2);
    else fetch(s + 1, wn, sn);
  };

  fetch(sb32, wn, sn);
  if constexpr (kAhead2) fetch(sb32 + 1, wn2, sn2);
  after_fetch();
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
    };
    uint32_t fa[2][tcv::kMmasPerStep][4];
    for (int s = sb32; s < se32; s += 2) {
      step(s, fa[0]);
      if (s + 1 < se32) step(s + 1, fa[1]);
    }
  }
  wgmma_wait<0>();
  cp_async_wait<0>();
}

// A (M x K, row-major) -> per token tile tt and step s, MN * 256 bytes at byte
// (tt * steps + s) * MN * 256 of `out`, in tcw_b_byte order; zeros past M and past K (K % 32 == 0).
// Launched with one thread per 16-byte core-matrix row of `out` (rows16 of them, 256 per CTA). The
// rows of 8 tokens at one step are 2048 contiguous bytes (kTcwSbo): a CTA reads those 8 tokens'
// 256 bytes of A for each of its two such groups with one 16-byte load per thread, then each thread
// gathers its row's 8 k-slots from shared memory and stores 16 bytes. (One thread reading its row's
// 8 elements from A with 2-byte loads ran at 2.2 TB/s, ~9% of GLM-4.7-Flash experts at M = 4096:
// bench/results/2026-11-25-h100-gtcworder.)
template <Act ACT, bool kTables, int MN>
__global__ void __launch_bounds__(256) tcw_permute_kernel(const typename ActTraits<ACT>::T* __restrict__ A,
                                                          uint4* __restrict__ out, int M, int64_t K, int64_t rows16) {
  using T = typename ActTraits<ACT>::T;
  if constexpr (kTcwPdlTile<MN>) {  // LinearArgs::pdl (launch_t): A and the workspace only after the previous work
    pdl_wait();
    pdl_launch_dependents();
  }
  static_assert(tcv::kTcwSbo == 8 * kTileBytesPerToken, "a group of 8 tokens at one step is kTcwSbo bytes");
  constexpr int kTokStride = kTileBytesPerToken + 16;  // bytes per token in `buf`: 8 tokens on different banks
  __shared__ __align__(16) char buf[2][8 * kTokStride];
  const int64_t steps = tcw_steps(K);
  const int64_t x = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;  // this thread's row of out
  const int g2 = threadIdx.x / 128, o = threadIdx.x % 128;  // its group in the CTA, its row in the group
  {
    // Group x / 128: 8 tokens of tile tt at step s. Thread o loads token o / 16's k-slice o % 16 (8 k).
    const int64_t grp = x / 128, ts = grp / (MN / 8), s = ts % steps, tt = ts / steps;
    const int j = o / 16, piece = o % 16;
    const int64_t token = tt * MN + (grp % (MN / 8)) * 8 + j, k = s * kStepK + 8 * piece;
    uint4 v = make_uint4(0u, 0u, 0u, 0u);
    // K % 32 == 0: the 8 k are all in or all out, and A + token * K + k is 16-byte aligned (A is:
    // linear and moe_linear refuse it otherwise, check_act in api.cu).
    if (x < rows16 && token < M && k < K) v = *reinterpret_cast<const uint4*>(A + token * K + k);
    *reinterpret_cast<uint4*>(buf[g2] + j * kTokStride + 16 * piece) = v;
  }
  __syncthreads();
  if (x >= rows16) return;
  const int byte = 16 * o;  // < kTcwSbo: the row's place in its group
  const int n = tcv::tcw_byte_token(byte);  // token in the group (0..7)
  const int islot = tcv::tcw_byte_islot(byte);  // slots islot .. islot + 7 of one sub-step
  const uint16_t* row = reinterpret_cast<const uint16_t*>(buf[g2] + n * kTokStride);
  uint16_t h[8];
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    const int i = (islot + e) / 16, slot = (islot + e) % 16;
    h[e] = row[kTables ? tcv::bt_slot_k(i, slot) : tcv::slot_k(i, slot)];
  }
  out[x] = make_uint4(h[0] | (uint32_t{h[1]} << 16), h[2] | (uint32_t{h[3]} << 16), h[4] | (uint32_t{h[5]} << 16),
                      h[6] | (uint32_t{h[7]} << 16));
}

}  // namespace kbit::gpu::detail
