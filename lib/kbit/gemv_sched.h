// The launch plan of the scalar gemv kernel (kernels/gemv.cu) as a pure function of the shape, the
// resident CTA slots and the GPU, so the CPU tests check the very plan the kernel launches with
// (tests/test_gemv_sched.cpp).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kbit/format.h"

namespace kbit {

inline constexpr int kGemvRows = 64;        // output rows per gemv CTA
inline constexpr int kGemvWarps = 4;        // warps per gemv CTA (each takes every 4th k-tile)
inline constexpr int kGemvClusterMax = 8;   // K slices per cluster: the portable cluster size

inline int64_t gemv_tiles(int64_t N) { return (N + kGemvRows - 1) / kGemvRows; }

// The most K slices gemv splits an N x K weight into on a GPU of `sms` SMs: about 4 CTAs per SM
// over the row tiles, at least 4 k-tiles per slice (one per warp) where K allows, never more
// slices than k-tiles. The workspace is sized by this count.
inline int gemv_max_splits(int64_t N, int64_t K, int64_t sms) {
  const int64_t tiles = gemv_tiles(N), kt = k_tiles(K);
  int64_t splits = (4 * sms + tiles - 1) / tiles;
  splits = std::min<int64_t>(splits, std::max<int64_t>(1, kt / kGemvWarps));
  splits = std::min<int64_t>(splits, kt);
  return static_cast<int>(std::max<int64_t>(splits, 1));
}

struct GemvPlan {
  int64_t tiles = 0;     // CTAs along N (grid.x)
  int splits = 1;        // K slices (grid.y)
  bool cluster = false;  // the slices of a row tile are one thread-block cluster (no workspace)
};

// The launch for `slots` resident CTAs of the instantiation that runs. One wave: when the row tiles
// alone fit the slots, no more slices than the slots allow (a second, partial wave would run a whole
// slice after the first; fewer slices than gemv_max_splits, so its workspace suffices). A grid of at
// most one CTA per SM with 2..kGemvClusterMax slices is one cluster per row tile where the GPU has
// clusters (`clusters`): H100, bench/results/2026-11-25-h100-cluster -- Qwen3 k_proj, 64 CTAs,
// 4.7 -> 4.2 us at M = 1 and 7.0 -> 4.7 at M = 4; on larger grids 8-CTA clusters lost (Qwen3
// q_proj, 512 CTAs: 0.82x), so they keep the workspace.
inline GemvPlan gemv_plan_for(int64_t N, int64_t K, int64_t slots, int64_t sms, bool clusters) {
  GemvPlan p;
  p.tiles = gemv_tiles(N);
  p.splits = gemv_max_splits(N, K, sms);
  if (p.tiles <= slots) p.splits = static_cast<int>(std::min<int64_t>(p.splits, std::max<int64_t>(1, slots / p.tiles)));
  p.cluster = clusters && p.splits > 1 && p.splits <= kGemvClusterMax && p.tiles * p.splits <= sms;
  return p;
}

// The two thresholds of the PDL plans below: CTAs of at most this many k-tiles (2 per warp) are
// short, and cluster grids of more CTAs than this reduce through the workspace under PDL.
inline constexpr int kGemvShortCtaKTiles = 2 * kGemvWarps;
inline constexpr int kGemvPdlClusterMaxCtas = 96;

// The plan of a PDL launch (LinearArgs::pdl) at M rows, from gemv_plan_for's: the split-K round
// (a cluster's barriers or the workspace fixup) costs more than its parallelism buys on two kinds of
// small grid, which then run on the workspace path with the early launch (gemv_early_launch holds
// for both). H100, bench/results/2026-11-26-h100-gemvearly/land (ab-snew-s*.txt):
// - at M = 1, rows of at most 8 k-tiles (K <= 512) unsplit: Qwen3 shared_expert.down (2048 x 512,
//   a cluster of 2 per row tile before) 1.15-1.31x at k = 5..2; at M = 2 0.89-1.08x, so M = 1 only;
// - cluster grids of more than 96 CTAs on the workspace: Qwen3 shared_expert.gate_up (1024 x 2048,
//   16 clusters of 8) 1.15-1.22x at M = 1, 1.00-1.10x at M = 2, where the 64-96 CTA cluster grids
//   lost 0.89-1.02x on the workspace.
inline GemvPlan gemv_pdl_plan(GemvPlan p, int64_t K, int64_t M) {
  if (M == 1 && k_tiles(K) <= kGemvShortCtaKTiles) {
    p.splits = 1;
    p.cluster = false;
  } else if (p.cluster && p.tiles * p.splits > kGemvPdlClusterMaxCtas) {
    p.cluster = false;
  }
  return p;
}

// Whether a plan's PDL launch (LinearArgs::pdl, M <= 2) issues its first weight loads before the
// wait and lets the next launch in once the wait returns (gemv_kernel's kGemvEarly): every workspace
// grid that fills at least 3/4 of the `slots` or gives each CTA at most 2 k-tiles per warp. H100,
// bench/results/2026-11-26-h100-gemvearly: 1.04-1.32x on those (Qwen3 o_proj 5.18 -> 4.32 us at M = 1,
// k = 4); GLM shared_experts.gate_up (320 CTAs on 528 slots, 8 k-tiles per warp) lost 0.83-0.90x.
inline bool gemv_early_launch(const GemvPlan& p, int64_t K, int64_t slots) {
  if (p.cluster) return false;
  const int64_t ctas = p.tiles * p.splits;
  const int64_t kt_per_cta = (k_tiles(K) + p.splits - 1) / p.splits;
  return 4 * ctas >= 3 * slots || kt_per_cta <= kGemvShortCtaKTiles;
}

// The staged form of gemv (kernels/gemv.cu, M = 1): every k-tile a warp runs, at most
// kGemvStageDepth of them, is requested at once through shared memory, where the register pipeline
// has one tile in flight ahead of the one it decodes.
inline constexpr int kGemvStageDepth = 4;

// The most k-tiles one warp of the plan runs.
inline int64_t gemv_warp_ktiles(const GemvPlan& p, int64_t K) {
  const int64_t kt_per_cta = (k_tiles(K) + p.splits - 1) / p.splits;
  return (kt_per_cta + kGemvWarps - 1) / kGemvWarps;
}

// Whether the staged kernel can run plan `p` (workspace or unsplit grids, at most kGemvStageDepth
// k-tiles per warp).
inline bool gemv_staged_plan_ok(const GemvPlan& p, int64_t K) {
  return !p.cluster && gemv_warp_ktiles(p, K) <= kGemvStageDepth;
}

// The part of the rule the register plan decides alone: a workspace or unsplit grid whose warps run
// k-tiles in series (launch_dense asks for the staged kernels' occupancy only then).
inline bool gemv_staged_candidate(const GemvPlan& reg, int64_t K) {
  return !reg.cluster && gemv_warp_ktiles(reg, K) >= 2;
}

// The rule: staged (on its own plan `staged`, sized by its occupancy) where the register pipeline's
// plan `reg` is a workspace or unsplit grid whose warps run k-tiles in series, and the staged grid
// has at most 2 CTAs per SM (`sms`). H100, bench/results/2026-11-26-h100-gemvstaged (same call, M = 1,
// k = 2..5, PDL): on the unsplit K = 512 grids of gemv_pdl_plan, 2 k-tiles per warp, Qwen3
// shared_expert.down (32 CTAs) 1.03-1.12x (k = 4: 2.06 -> 1.87 us) and GLM kv_b_proj (140 CTAs)
// 1.01-1.10x; on the full split grids (384-512 CTAs) it lost 0.77-0.97x (Qwen3 dense.gate_up k = 4
// 6.84 -> 7.92 us, dense.down 5.02 -> 5.69), and so did grouped_gemv's 320 CTAs of Qwen3
// experts.down (0.88-0.94x), which keeps the register pipeline.
inline bool gemv_use_staged(const GemvPlan& reg, const GemvPlan& staged, int64_t K, int64_t sms) {
  return gemv_staged_candidate(reg, K) && gemv_staged_plan_ok(staged, K) && staged.tiles * staged.splits <= 2 * sms;
}

// The k = 4 pair table on gemv's multi-wave grids at M = 1 (kernels/gemv.cu, launch_dense) by the device's memory: peak
// DRAM bandwidth in GB/s from the memory clock (kHz, cudaDevAttrMemoryClockRate) and the bus width (bits), double
// data rate. H100 SXM: 2,619,000 kHz x 5,120 bits = 3,352 GB/s; H200: 3,201 MHz by nvidia-smi x 6,144 bits = 4,917
// GB/s, and 4,814 GB/s from the attributes the runtime reported on the H200 of bench/results/2026-11-28-h200-ptland.
inline double peak_dram_gbps(int64_t mem_clock_khz, int64_t bus_bits) {
  return static_cast<double>(mem_clock_khz) * 1e3 * 2.0 * static_cast<double>(bus_bits) / 8.0 / 1e9;
}
// The device class of the dispatch rules measured on the H200 only (gemv_pairs_multiwave, gemv_short_narrow_fast,
// moe_gemv_short_fast, automatic's M = 1, k = 2 bound under PDL): from 4,500 GB/s of peak bandwidth -- the H200; not an
// H100 of any form, whose fastest, the NVL, reads ~3,900 by its datasheet, ~4,020 by this formula.
inline constexpr double kFastDramMinGbps = 4500.0;
inline bool fast_dram(double peak_gbps) { return peak_gbps >= kFastDramMinGbps; }
// On the H100 the table lost on Llama-3-70B gate_up at M = 1 (896 CTAs on 528 slots: 93.8 -> 99.7 us,
// bench/results/2026-11-26-h100-gemvpairs), so it stays off there; on the H200 it won on the same grid (95.10 ->
// 87.67 us, bench/results/2026-11-28-h200-gemvptmw): on fast_dram devices the table stays on.
inline bool gemv_pairs_multiwave(double peak_gbps) { return fast_dram(peak_gbps); }

// Short narrow rows (K <= 512, N <= 2048: Qwen3-Coder-Next shared_expert.down) on fast_dram GPUs (the H200):
// the dispatch keeps gemv at M = 2, k >= 3 under PDL (gemv_pdl 2.05 / 2.06 / 2.11 us at k = 3 / 4 / 5 against
// tcv_pdl's 2.16 / 2.14 / 2.45) and at M = 1, k = 2 without it (3.45 against 3.58), three reps each
// (bench/results/2026-11-28-h200-shortrows), where the H100 had tcv ahead at both (2.48 against 2.58 at M = 2, k = 4
// and 2.42 against 2.63 at k = 5, -h100-tcvearly; 3.37 against 3.66 at M = 1, k = 2, -h100-gemvadj).
inline bool gemv_short_narrow_fast(int64_t M, int bits, bool pdl, double peak_gbps) {
  if (!fast_dram(peak_gbps)) return false;
  return pdl ? M == 2 && bits >= 3 : M == 1 && bits == 2;
}

// The balance of one-wave early grids (kernels/gemv.cu, KBIT_GEMV_BALANCE): the dynamic shared memory that holds a
// kernel of `static_bytes` of static shared memory to `need` CTAs on an SM of `smem_per_sm` bytes that reserves
// `reserved` bytes per CTA -- each CTA's share in whole 128-byte allocation units (the occupancy calculator's
// granularity from sm_80) less what the CTA already takes; 0 where that leaves nothing. need CTAs then fit and
// need + 1 do not wherever smem_per_sm / need exceeds 128 (need + 1) bytes (gemv.cu also checks the occupancy).
inline int64_t gemv_balance_pad(int64_t smem_per_sm, int64_t need, int64_t static_bytes, int64_t reserved) {
  if (need < 1) return 0;
  const int64_t share = smem_per_sm / need / 128 * 128;
  return std::max<int64_t>(0, share - static_bytes - reserved);
}

}  // namespace kbit
