// The work partition of the tcw kernel (kernels/tcw.cu), host + device so the CPU tests check the
// very functions the kernel and its fixup run (tests/test_tcw_sched.cpp).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kbit/format.h"

namespace kbit {

// Stream-K schedule: the (tile, step) units, tile = token tile * row_tiles + row tile, step-major
// within a tile, are cut into `ctas` contiguous ranges of equal size (+-1), one per CTA, and ctas is
// at most one wave of resident CTAs, so every SM works until the end instead of the last wave of
// whole tiles running on a fraction of them. A CTA walks its range tile by tile; a tile it covers
// whole goes straight to C, a tile it shares with a neighbour goes to one of its two fp32 partial
// slots (0: the segment that starts inside a tile, 1: the one that ends inside it), which
// tcw_fixup_kernel sums in CTA order (deterministic).
struct TcwSched {
  int64_t units = 0;      // row_tiles * tok_tiles * steps
  int64_t ctas = 1;       // grid size
  int64_t row_tiles = 1;
  // > 0: ctas = tiles * splits, every tile cut into `splits` slices; the partials are [slice][M][N]
  // and tcw_reduce_kernel sums them. 0: stream-K, partials = ctas * 2 slots of MN tokens x 128 rows
  // ([token][row]) summed by tcw_fixup_kernel.
  int splits = 1;
  float* partials = nullptr;
};
KBIT_HD inline int64_t sched_begin(const TcwSched& s, int64_t c) { return c * s.units / s.ctas; }
// The CTA whose range holds unit u: the largest c with sched_begin(c) <= u.
KBIT_HD inline int64_t sched_cta(const TcwSched& s, int64_t u) {
  const int64_t c = ((u + 1) * s.ctas - 1) / s.units;
  return c < s.ctas - 1 ? c : s.ctas - 1;
}

// The tile that CTA boundary b (1 .. ctas - 1, the first unit of CTA b) sums in tcw_fixup_kernel, or
// -1: a boundary inside a tile owns it when it is the tile's first such boundary, so each shared
// tile is summed exactly once and a boundary at a tile's start owns nothing.
KBIT_HD inline int64_t sched_fixup_tile(const TcwSched& s, int64_t steps, int64_t b) {
  const int64_t u = sched_begin(s, b), tile = u / steps, u0 = tile * steps;
  return (u == u0 || sched_begin(s, b - 1) > u0) ? -1 : tile;
}
// Stream-K partial slot of a CTA's segment that starts at step sb of its tile: 0 when it starts
// inside the tile (only a CTA's first segment can), 1 otherwise (a shared tile entered at its
// start: only a CTA's last segment can end inside a tile).
KBIT_HD inline int sched_slot(int64_t sb) { return sb > 0 ? 0 : 1; }

// The dynamic shared memory that leaves an SM room for at most `ctas_per_sm` CTAs of a kernel with
// `static_bytes` of static shared memory (tcw_pads, kernels/tcw.cu): ctas_per_sm + 1 CTAs of
// this size, each with its static and the device's per-CTA reserved shared memory, exceed the SM's
// `per_sm` bytes. A multiple of 128 bytes; the caller checks it against the per-block opt-in limit
// (and the occupancy the device then reports).
constexpr int pad_smem_bytes(int per_sm, int static_bytes, int reserved, int ctas_per_sm) {
  return (per_sm / (ctas_per_sm + 1) - static_bytes - reserved + 128) / 128 * 128;
}

// tcw's work partition (tcw_plan, kernels/tcw.cu) over `tiles` (row tiles x token tiles) of `steps`
// steps each, on `slots` CTA slots (SMs x the CTAs per SM the plan counts). Two candidates, compared
// by the makespan in steps per slot:
// - per tile: every tile cut into `splits` equal slices when the tiles leave slots idle (as many as
//   still fit one wave, each >= 2 steps, the fp32 partials, splits x M x N, within 32 MB so that they
//   stay in the 50 MB L2; rounding up started a short second wave: Qwen3 dense.gate_up M = 64, 21 -> 26
//   us), else whole tiles in waves: makespan ceil(tiles * splits / slots) * ceil(steps / splits);
// - stream-K: one wave of equal ranges, each >= 2 steps: makespan ceil(units / ctas). 448 tiles on
//   132 SMs are 3.4 waves of work but took 4 waves of whole tiles.
// Stream-K where its makespan is <= 86% of the per-tile one and that is >= 32 steps: on the H100
// (bench/results/2026-11-25-h100-streamk) it won 1.00-1.28x there (Llama-3-70B gate_up M = 64 274 ->
// 219 us) but lost up to 1.8x on short makespans (<= 16 steps: GLM kv_b_proj, K = 512), where its
// fixup and per-segment pipeline refills cost more than the idle slots; on the H200 (bench/results/2026-11-28-h200-
// s46a, the threshold at 16 and 8 steps, branch exp/tcw-skmin) it lost 0.79-0.84x on the 80-tile Qwen3 dense.gate_up
// rows it moved (M = 128..256; 0.995x over 324 rows): 32 holds. force: 0 by makespan, 1 per
// tile, 2 stream-K, 3 stream-K on at most 4 CTAs, 4 whole runs (below) on at most 4 CTAs, each >= 2
// steps where the units allow (tests).
// whole (tcw_plan passes it from 128-token tiles, where the stream-K kernel runs on bulk copies and
// mbarriers, at k >= 4 on >= 16 steps; KBIT_TCW_WHOLE=0 turns it off): where the per-tile candidate wins and
// its whole tiles take more than one wave, and ctas = ceil(tiles / run) for run = ceil(tiles / slots) divides
// the tiles (else per tile stays: 1793 tiles on 132 slots), the tiles go to the stream-K kernel instead, as
// one wave of CTAs with equal runs of whole tiles (every range starts at a tile's start): the per-tile
// makespan, no shared tile and no fixup, and one pipeline over each CTA's tiles instead of a CTA per tile
// with its own start, pair-table staging, refill and epilogue. On the H100
// (bench/results/2026-11-27-h100-tcwwhole) it won 1.02-1.09x at k = 4 and 5 on K >= 2048 at M = 512 and 1024
// (Llama-3-70B gate_up M = 1024, k = 4: 1547 -> 1420 us) and lost at k = 2 and 3 (0.90-0.96x) and on K <= 768
// (4-6 steps a tile: 0.96-0.99x). Balanced stream-K wherever its makespan was no longer than per tile (the
// 86% above at 100%) lost up to 0.68x (-tcwskpct): shared tiles' fixups, and ranges that start inside tiles.
struct TcwPartition {
  int64_t ctas = 1;
  int splits = 1;         // > 0: per tile (TcwSched::splits); 0: stream-K
  int64_t cta_steps = 0;  // the most steps one CTA runs
};
inline TcwPartition tcw_partition(int64_t M, int64_t N, int64_t steps, int64_t tiles, int64_t slots, int force = 0,
                                  bool whole = false) {
  const int64_t units = tiles * steps;
  int64_t splits = std::min<int64_t>(std::max<int64_t>(1, slots / tiles), std::max<int64_t>(1, steps / 2));
  while (splits > 1 && static_cast<double>(splits) * M * N * 4 > 32.0e6) --splits;
  const int64_t slice = (steps + splits - 1) / splits;
  const int64_t per_tile = (tiles * splits + slots - 1) / slots * slice;
  // (force 3, tests: stream-K on at most 4 CTAs, so that small shapes give each CTA a long range)
  const int64_t ctas_k = std::max<int64_t>(1, std::min<int64_t>(force == 3 ? std::min<int64_t>(slots, 4) : slots, units / 2));
  const int64_t stream_k = (units + ctas_k - 1) / ctas_k * ((ctas_k + slots - 1) / slots);
  TcwPartition r;
  if (force == 4) {
    int64_t c = std::min<int64_t>(slots, 4);
    while (c > 1 && (tiles % c != 0 || tiles / c * steps < 2)) --c;
    r.ctas = c;
    r.splits = 0;
    r.cta_steps = tiles / c * steps;
    return r;
  }
  if (force >= 2 || (force == 0 && per_tile >= 32 && 100 * stream_k <= 86 * per_tile)) {
    r.ctas = ctas_k;
    r.splits = 0;
    r.cta_steps = (units + ctas_k - 1) / ctas_k;
  } else {
    r.ctas = tiles * splits;
    r.splits = static_cast<int>(splits);
    r.cta_steps = slice;
    const int64_t run = (tiles + slots - 1) / slots, ctas_w = (tiles + run - 1) / run;  // whole tiles per CTA
    if (whole && force == 0 && splits == 1 && run > 1 && tiles % ctas_w == 0) {
      r.ctas = ctas_w;
      r.splits = 0;
      r.cta_steps = run * steps;
    }
  }
  return r;
}

// The CTAs per SM tcw's plan counts on an SM that holds `resident` of the kernel's CTAs: all of them,
// unless the partition on that many slots leaves each CTA fewer than `min_steps` steps; then one.
// tcw_plan passes kTcwSharedSmMinSteps from 64-token tiles up and 0 for the 32-token ones (their
// kernels were built and tuned for two CTAs per SM; the rule was measured on 64-token tiles only).
// On the H100 k = 2's 64-token kernels hold 2 (bench/results/2026-11-27-h100-occfix): counting 2 won
// 1.00-1.32x where a CTA then ran >= 6 steps (Llama-3-70B gate_up M = 64 195 -> 164 us, Qwen3
// dense.gate_up at 6 steps 1.00-1.11x) and lost at 2-5 (0.95-0.99x; GLM kv_b_proj at 2: 0.71-0.77x):
// two CTAs halve each one's steps and add slices to sum, while sharing the SM's issue slots.
inline constexpr int64_t kTcwSharedSmMinSteps = 6;
struct TcwSlots {
  int ctas_per_sm = 1;
  TcwPartition part;
};
inline TcwSlots tcw_slots(int64_t M, int64_t N, int64_t steps, int64_t tiles, int sms, int resident, int64_t min_steps,
                          int force = 0, bool whole = false) {
  TcwSlots r;
  r.ctas_per_sm = resident > 1 ? resident : 1;
  r.part = tcw_partition(M, N, steps, tiles, static_cast<int64_t>(r.ctas_per_sm) * sms, force, whole);
  if (r.ctas_per_sm > 1 && r.part.cta_steps < min_steps) {
    r.ctas_per_sm = 1;
    r.part = tcw_partition(M, N, steps, tiles, sms, force, whole);
  }
  return r;
}

// tcw's token tile (tokens per CTA tile, wgmma's N) by M alone: the least of 32, 64, 128 and 256 that
// holds M, 256 from M = 129 up. tcw_choose_tile may take a smaller one from M = 65 up.
KBIT_HD constexpr int tcw_default_tile(int64_t M) { return M <= 32 ? 32 : M <= 64 ? 64 : M <= 128 ? 128 : 256; }

// The relative cost of a tcw plan at token tile mn (64, 128, 160, 192, 224 or 256), by which tcw_choose_tile compares
// tiles: c(mn, k) per step of the longest CTA (the waves of CTAs at most sms x ctas_per_sm at a time, times a CTA's
// steps) plus b(k) per MB of fp32 partials (split-K slices or stream-K's slots of shared tiles). Fitted
// (least squares, relative error) to tcw over the dense catalogue at M = 128..1024 under 256-, 128- and
// 64-token tiles on the H100 (bench/results/2026-11-27-h100-mncap; us): k = 2 c = 1.27 / 1.09 / 1.64 at
// 64 / 128 / 256 tokens (its 64-token kernel holds two CTAs per SM), b = 0.62; k = 4 c = 0.92 / 1.12 / 1.70,
// b = 0.48. A step costs about the same at 64 and 128 tokens (~1 us: the decode and the activation stream,
// not the tensor pipe, ncu in -stepsncu), so smaller tiles pay where they remove K slices, partials or a
// half-empty token tile. k = 3 takes k = 2's figures (byte-table decode; both hold two CTAs per SM at 64
// tokens, as k = 2 did in the fit), k = 5 k = 4's.
// `ctas_per_sm`: the CTAs per SM the plan counts (TcwSlots). k = 4's 64-token kernels on the pair table
// hold two (kTcwMinBlocks, kernels/tcw_common.cuh); a step of each of two CTAs sharing an SM costs 1.48
// (0.92 x 1.61: the ratio of the fitted step costs at two and one CTA per SM, 1.327 / 0.824, over tcw's
// 64-token plans at M = 33..256, k = 4 in bench/results/2026-11-27-h100-minb64).
// `lone64`: k = 2 and 3's step at 64 tokens where the plan counts one CTA per SM (tcw_slots gives one where two
// would leave a CTA fewer than kTcwSharedSmMinSteps steps: the short plans of the small shapes), in place of the
// fitted 1.27, which prices two CTAs sharing an SM; tcw_tile_cost passes kTcwLone64K2 where tcw_lone64_short holds.
inline constexpr double kTcwLone64K2 = 0.85, kTcwLone64K2Fitted = 1.27;
inline double tcw_plan_cost(int mn, int bits, const TcwPartition& part, int sms, int ctas_per_sm,
                            double partial_bytes, double lone64) {
  static constexpr double c2[3] = {1.27, 1.09, 1.64}, c4[3] = {0.92, 1.12, 1.70}, c4_two64 = 1.48;
  const int i = mn <= 64 ? 0 : mn <= 128 ? 1 : 2;
  const double* cf = bits <= 3 ? c2 : c4;
  double c = cf[i];
  if (mn > 128 && mn < 256)
    c = cf[1] + (cf[2] - cf[1]) * (mn - 128) / 128.0;  // not fitted: linear from 128 to 256 tokens (192: halfway)
  else if (bits >= 4 && i == 0 && ctas_per_sm >= 2)
    c = c4_two64;
  else if (bits <= 3 && mn == 64 && ctas_per_sm < 2)
    c = lone64;
  const double b = bits <= 3 ? 0.62 : 0.48;
  const int64_t slots = static_cast<int64_t>(sms) * ctas_per_sm;
  const int64_t waves = part.splits > 0 ? (part.ctas + slots - 1) / slots : 1;
  return c * static_cast<double>(waves * part.cta_steps) + b * partial_bytes / 1.0e6;
}
// The fp32 partial bytes of a tcw plan over `tiles` tiles of mn tokens (tcw_plan's workspace after the
// permuted activations; 0 where no tile is shared): split-K's slices x M x N, or stream-K's two slots of
// mn x 128 per CTA where some tile is shared (the tiles do not divide among the CTAs).
inline int64_t tcw_partial_bytes(int64_t M, int64_t N, int mn, int64_t tiles, const TcwPartition& part) {
  if (part.splits > 1) return int64_t{4} * part.splits * M * N;
  if (part.splits == 0 && tiles % part.ctas != 0) return int64_t{4} * 2 * part.ctas * mn * 128;
  return 0;
}
// Where k = 2 and 3's lone 64-token step takes the price `lone64` (kTcwLone64K2) in tcw_tile_cost: plans whose CTAs
// run at most 4 steps, or 6 up to M = 256. Measured on the H200: with tcw_pdl at each tile forced (bench/results/
// 2026-11-28-h200-s46b) the 64-token plan ran 1.04-1.32x faster than the 128-token one the fitted 1.27 chose on the
// small shapes at M = 96..256, k = 2 (Qwen3 k/v_proj, shared_expert; GLM q_a, kv_a, q_b_proj; Llama-3-8B k/v_proj);
// then fitted / 0.85 in one call (-s46l, two reps, k = 2 and 3, M = 80..1024): the 124 rows the price moved
// everywhere 1.110x (0.856-1.326), losing on 8-step plans (Qwen3 k/v_proj M = 768: 0.88-0.90x) and on 6-step ones
// above M = 256 (Qwen3 shared_expert.gate_up M = 320: 0.97x; GLM kv_a_proj M = 512: 0.92-0.94x); the 100 of them
// this bound keeps 1.156x (0.943-1.326; two rows below 0.97, Qwen3 shared_expert.gate_up M = 192: 0.954x, 0.943x).
// k = 4's figures held (a lower lone price moved rows that lost). Measured with tcw_pdl and automatic_pdl; plain
// launches take the same plans, not measured.
inline bool tcw_lone64_short(int64_t M, int64_t cta_steps) { return cta_steps <= 4 || (cta_steps <= 6 && M <= 256); }
// tcw_plan_cost of the plan `s` (tcw_slots' answer at tile mn on `sms` SMs) for M x N; `lone64` as above
// (kTcwLone64K2Fitted: the fitted price everywhere).
inline double tcw_tile_cost(int64_t M, int64_t N, int mn, int bits, int sms, const TcwSlots& s,
                            double lone64 = kTcwLone64K2) {
  const int64_t tiles = (N + 127) / 128 * ((M + mn - 1) / mn);
  const double partial_bytes = static_cast<double>(tcw_partial_bytes(M, N, mn, tiles, s.part));
  const double lone = tcw_lone64_short(M, s.part.cta_steps) ? lone64 : kTcwLone64K2Fitted;
  return tcw_plan_cost(mn, bits, s.part, sms, s.ctas_per_sm, partial_bytes, lone);
}
inline constexpr int64_t kTcwMaxTokenTiles = 65535;  // tcw_kernel's grid y (kTcwMaxM assumes 256-token tiles)
// tcw_plan's token tile for M tokens: the default (tcw_default_tile), or from M = 65 up a half or a quarter
// of it (at least 64 tokens) where tcw_plan_cost puts that plan at <= 92% of the default's (and below any
// other candidate) and its token tiles fit tcw_kernel's grid. slots_at(mn) gives the plan's TcwSlots at
// tile mn (tcw_slots with that tile's kernel). The 8% margin: in the fitted record every row it moves is
// then faster or within 2% (geomean 1.065x at k = 2 and 4 over M = 128..1024), where choosing by the bare
// minimum moved some rows that lost up to 16% (Llama-3-70B mlp.down at M = 384 to a stream-K plan at 128
// tokens).
// `mid`: the tiles between 128 and 256 tokens that are candidates too where the default is 256 and they need no
// more token tiles than 256, by the same rule: bit 0 160 tokens (KBIT_TCW_TILE160), bit 1 192 (KBIT_TCW_TILE192,
// kernels/tcw_common.cuh), bit 2 224 (KBIT_TCW_TILE224); all three on by default (bench/results/2026-11-28-h100-
// tile192, -tilewidths). Where one would need more, the interpolated step price can still put it ahead, but such
// plans were not measured. Only up to M = kTcwMidMaxM, the largest M they were measured at: 192 and 160 need no
// more token tiles than 256 only below it anyway (M <= 576, <= 320), but 224 would up to M = 1568 (seven tiles),
// and its step, priced at 0.915 of 256's, is within the 8% margin wherever the plans are alike, so without the
// bound it would take M = 600..672, 769..896, ... on the large shapes, which no run measured.
inline constexpr int kTcwMidTiles[3] = {160, 192, 224};
inline constexpr int64_t kTcwMidMaxM = 576;
template <class SlotsAt>
int tcw_choose_tile(int64_t M, int64_t N, int bits, int sms, SlotsAt&& slots_at, unsigned mid = 0,
                    double lone64 = kTcwLone64K2) {
  const int mn0 = tcw_default_tile(M);
  if (mn0 < 128) return mn0;
  auto cost = [&](int mn) { return tcw_tile_cost(M, N, mn, bits, sms, slots_at(mn), lone64); };
  const double c0 = cost(mn0);
  int best = mn0;
  double cb = c0;
  auto consider = [&](int mn) {
    const double c = cost(mn);
    if (c <= 0.92 * c0 && c < cb) {
      best = mn;
      cb = c;
    }
  };
  for (int j = 0; j < 3; ++j) {  // (as many token tiles as the default)
    const int t = kTcwMidTiles[j];
    if ((mid >> j & 1u) && mn0 == 256 && M <= kTcwMidMaxM && (M + t - 1) / t == (M + 255) / 256) consider(t);
  }
  for (int mn = mn0 / 2; mn >= 64 && mn >= mn0 / 4; mn /= 2) {
    if ((M + mn - 1) / mn > kTcwMaxTokenTiles) break;
    consider(mn);
  }
  return best;
}

// grouped_tcw (kernels/grouped_tcw.cu): a work item of `rows` routed rows (1 <= rows <= tile) in a
// `tile`-token tile runs its wgmma at width tile >> j, the least power-of-two part of the tile that
// holds its rows and is at least 32 tokens wide (wgmma's N; the kernel has one step loop per width).
KBIT_HD constexpr int grouped_item_width_shift(int tile, int rows) {
  int j = 0;
  while ((tile >> (j + 1)) >= 32 && (tile >> (j + 1)) >= rows) ++j;
  return j;
}

}  // namespace kbit
