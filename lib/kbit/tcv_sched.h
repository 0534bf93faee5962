// The launch plan of the tcv kernel (kernels/tcv.cu) as a pure function of the shape and the
// resident CTA slots, so the CPU tests check the very plan the kernel launches with
// (tests/test_tcv_sched.cpp).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kbit/format.h"
#include "kbit/tcv_map.h"

namespace kbit {

inline constexpr int kTcvWarps = 4;  // warps per tcv CTA

// Weight rows per tcv CTA when kw of its 4 warps split K (each warp owns 16 rows), and the
// 128-k warp steps of a K.
KBIT_HD constexpr int tcv_rows_per_cta(int kw) { return 16 * (kTcvWarps / kw); }
KBIT_HD inline int64_t tcv_steps(int64_t K) { return (K + tcv::kStepK - 1) / tcv::kStepK; }

inline constexpr int kTcvClusterMax = 8;      // K slices per cluster: the portable cluster size
inline constexpr int kTcvClusterFloats = 768;  // sm.red, where a cluster's slices publish their sums

struct TcvPlan {
  int kw = 1;            // warps splitting K inside a CTA (1, 2, 4)
  int splits = 1;        // CTAs splitting K (split-K, through the workspace unless `cluster`)
  int64_t tiles = 0;     // CTAs along N
  bool short_k = false;  // one pass where the split plan would have split K across CTAs
  bool cluster = false;  // the splits of a row tile are one thread-block cluster (no workspace)
  int64_t slots = 0;     // the resident CTA slots the plan was made for
  int64_t steps = 0;     // the 128-k steps of K
  int64_t sms = 0;       // the SMs of the GPU it was made for
};

// The launch shape for M tokens of an N x K weight of `bits` when `slots` CTAs fit on a GPU of
// `sms` SMs at once (`clusters`: whether it launches thread-block clusters, sm_90). Small N: split K inside the CTA first (a shared-memory sum), then across CTAs,
// until every warp slot has work of >= 2 steps. The cross-CTA split is where latency-bound shapes
// lose time (the fixup's fence and second round trip through the workspace; H100,
// bench/results/2026-11-25-h100-tcvshortk and -cluster), so:
//   1. a grid of at most one CTA per SM reduces its 2..8 slices in a thread-block cluster (Qwen3
//      k_proj, 64 CTAs: 1.11-1.66x over the workspace at k = 2..5);
//   2. else, if the in-CTA split leaves <= 4 steps per warp, one pass without the cross-CTA split
//      (Qwen3 q_proj, dense.gate_up, GLM q_b_proj: 1.25-1.8x at k = 2, 3, 5; clusters of their
//      256-1280 CTAs gained less);
//   3. else clusters of <= 4 CTAs up to 4 CTAs per SM (Llama-3-8B k_proj, 256 CTAs, 1.02-1.3x;
//      Qwen3 o_proj, 512 CTAs, 1.0-1.18x at M >= 2; gemv's 8-CTA clusters lost on 512 CTAs);
//   4. else the workspace, its slices cut to one wave of the slots (tiles x splits <= slots; one
//      slice per tile where no more fit), as tcw rounds its split count down. H100, bench/results/
//      2026-11-27-h100-tcvwave (against the uncut plans, same build): tcv 1.03-1.12x and tcv_pdl
//      1.04-1.12x geomean at M = 3..16 over Llama-3-8B, Llama-3-70B and GLM-4.7-Flash; at M = 4
//      Llama-3-8B q/o_proj 1024 CTAs of 4 slices -> 768 of 3 (tcv_pdl 9.04 -> 6.45 us at k = 2),
//      Llama-3-70B q/o_proj and down 1024 of 2 -> 512 of 1 (q_proj 18.41 -> 16.06 us).
// Large N: one K range per CTA unless a few splits balance the waves better than their fp32
// partials cost (both counted in bytes per resident CTA slot), through the workspace.
inline TcvPlan tcv_plan_for(int64_t M, int64_t N, int64_t K, int bits, int64_t slots, int64_t sms,
                            bool clusters = true) {
  const int64_t steps = tcv_steps(K);
  const int64_t groups16 = (N + 15) / 16;
  const int64_t want_parts = (slots * kTcvWarps + groups16 - 1) / groups16;
  const int64_t parts = std::clamp<int64_t>(want_parts, 1, std::max<int64_t>(1, steps / 2));
  TcvPlan p;
  p.slots = slots;
  p.steps = steps;
  p.sms = sms;
  p.kw = parts >= 4 ? 4 : parts >= 2 ? 2 : 1;
  const int64_t rows = tcv_rows_per_cta(p.kw);
  p.tiles = (N + rows - 1) / rows;
  if (parts > 1) {
    p.splits = static_cast<int>(std::clamp<int64_t>((parts + p.kw - 1) / p.kw, 1, std::max<int64_t>(1, steps / p.kw)));
    if (p.splits == 1) return p;
    const int nt = M > 8 ? 2 : 1;
    const bool cluster_ok = clusters && p.splits <= kTcvClusterMax && (kTcvWarps / p.kw) * 32 * nt * 4 <= kTcvClusterFloats;
    const int64_t ctas = p.tiles * p.splits;
    if (cluster_ok && ctas <= sms) {
      p.cluster = true;
    } else if (steps <= 4 * p.kw) {
      p.splits = 1;
      p.short_k = true;
    } else if (cluster_ok && p.splits <= 4 && ctas <= 4 * sms) {
      p.cluster = true;
    } else if (ctas > slots) {  // 4. in one wave
      p.splits = static_cast<int>(std::max<int64_t>(1, slots / p.tiles));
    }
    return p;
  }
  const double step_bytes = static_cast<double>(rows) * tcv::kStepK * (bits / 8.0 + 1.0 / 32);
  double best = 0;
  for (int s = 1; s <= std::min<int64_t>(8, steps); ++s) {
    const int64_t waves = (p.tiles * s + slots - 1) / slots;
    const double cost = static_cast<double>(waves) * ((steps + s - 1) / s) * step_bytes +
                        (s > 1 ? 2.0 * s * M * N * 4 / static_cast<double>(slots) : 0.0);
    if (s == 1 || cost < best * 0.97) {
      best = cost;
      p.splits = s;
    }
  }
  return p;
}

// grouped tcv's in-CTA K split (kw: 1, 2, 4) for `items` expected work items of N rows, K of `steps`
// 128-k steps, on `slots` resident CTA slots; each warp >= 1 step:
// - with a pair table (every CTA stages 16-32 KB of it before its first step) while the grid of
//   the doubled kw still fits the resident slots, one wave. H100, bench/results/2026-11-27-h100-
//   moekw, automatic_pdl against doubling while the current grid was below the slots (up to 2x
//   them): at M = 2, k = 2..4 1.04-1.32x (Qwen3 experts.down 10.49 -> 7.93 us, 1280 CTAs of kw = 2
//   -> 640 of kw = 1; experts.gate_up 15.16 -> 12.80; GLM experts.down 10.92 -> 8.92), at M = 3, 4
//   0.96-1.18x (GLM experts.down 13.95 -> 11.81 at M = 3, GLM experts.gate_up 21.05 -> 21.91);
// - without one (k = 5, k = 4 without the fp16 codebook, k = 2 above kTcvPairs2MaxM rows) while the
//   current grid is below the slots: one wave at k = 5 lost 0.89-0.99x on experts.gate_up at M = 3,
//   4 (GLM M = 3 28.86 -> 32.28 us) against 1.06-1.12x on three of four shapes at M = 2.
inline int grouped_tcv_kw(int64_t items, int64_t N, int64_t steps, int64_t slots, bool pair_table) {
  auto ctas = [&](int kw) { return items * ((N + tcv_rows_per_cta(kw) - 1) / tcv_rows_per_cta(kw)); };
  int kw = 1;
  while (kw < 4 && 2 * kw <= steps && (pair_table ? ctas(2 * kw) <= slots : ctas(kw) < slots)) kw *= 2;
  return kw;
}

// Whether a PDL launch (LinearArgs::pdl) of plan p issues its first weight loads before the wait
// and lets the next launch in once the wait returns (tcv_kernel's kTcvEarly): every plan that is
// neither a latency plan (cluster, one pass: already so) nor more than one wave of the slots. H100,
// bench/results/2026-11-26-h100-tcvearly, tcv_pdl against the stage-first launch: 1.05-1.14x on Qwen3
// dense.down and GLM o_proj (640 CTAs of 5 slices), 1.11-1.43x on the unsplit K = 512 grids (Qwen3
// shared_expert.down, 64 CTAs; GLM kv_b_proj, 280); on the grids of 1.13-1.62 waves 0.89-1.04x
// (Llama-3-8B q/o_proj, down, gate_up; GLM shared_experts). Not one slice per tile whose warps run
// more than 8 steps: Llama-3-70B q/o_proj and down (512 CTAs, 16 and 56 steps per warp), cut to one
// wave, measured tcv_pdl 0.68-0.90x against the uncut plans at M = 3..8 when launched early (q/o_proj
// at M = 16 0.90-1.06x) and 0.96-1.31x launched stage-first (q/o_proj 1.06-1.31x; down at M = 8, k = 3
// 0.956x; bench/results/2026-11-27-h100-tcvwave, first/ and second/).
inline bool tcv_early_launch(const TcvPlan& p) {
  return !p.cluster && !p.short_k && p.tiles * p.splits <= p.slots && !(p.splits == 1 && p.steps > 8 * p.kw);
}

// What dispatch (kernels/api.cu) asks of a plan:
// - a latency plan: the one pass, or a cluster split-K grid of at most one CTA per SM;
inline bool tcv_latency(const TcvPlan& p) { return p.short_k || (p.cluster && p.tiles * p.splits <= p.sms); }
// - a cluster grid of more than one CTA per SM (clusters of <= 4 slices, e.g. Qwen3 o_proj's 512 CTAs);
inline bool tcv_wide_cluster(const TcvPlan& p) { return p.cluster && p.tiles * p.splits > p.sms; }
// - one slice per row tile in at most one wave, neither cluster nor one pass (Llama-3-70B q/o_proj's
//   512 CTAs at M <= 16 on an H100);
inline bool tcv_unsplit_wave(const TcvPlan& p) {
  return p.splits == 1 && !p.cluster && !p.short_k && p.tiles <= p.slots;
}
// - the K slices of a grid a PDL launch starts early (1 on an unsplit grid), else 0;
inline int tcv_early_splits(const TcvPlan& p) { return tcv_early_launch(p) ? p.splits : 0; }
// - the 128-k steps each warp runs (K's steps over kw x splits, rounded up).
inline int64_t tcv_warp_steps(const TcvPlan& p) {
  const int64_t per = static_cast<int64_t>(p.kw) * p.splits;
  return (p.steps + per - 1) / per;
}

}  // namespace kbit
