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

struct TcvPlan {
  int kw = 1;            // warps splitting K inside a CTA (1, 2, 4)
  int splits = 1;        // CTAs splitting K (split-K through the workspace when > 1)
  int64_t tiles = 0;     // CTAs along N
  bool short_k = false;  // one pass where the split plan would have split K across CTAs (k = 4)
};

// The launch shape for M tokens of an N x K weight of `bits` when `slots` CTAs fit on the GPU at
// once. Small N: split K inside the CTA first (a shared-memory sum), then across CTAs, until every
// warp slot has work of >= 2 steps -- except at k = 4 where the in-CTA split leaves <= 4 steps per
// warp: one pass, no cross-CTA split-K (the fixup's fence and second round trip cost more on these
// latency-bound shapes: H100, bench/results/2026-11-25-h100-tcvshortk, measured at k = 4 only).
// Large N: one K range per CTA unless a few splits balance the waves better than their fp32
// partials cost (both counted in bytes per resident CTA slot).
inline TcvPlan tcv_plan_for(int64_t M, int64_t N, int64_t K, int bits, int64_t slots) {
  const int64_t steps = tcv_steps(K);
  const int64_t groups16 = (N + 15) / 16;
  const int64_t want_parts = (slots * kTcvWarps + groups16 - 1) / groups16;
  const int64_t parts = std::clamp<int64_t>(want_parts, 1, std::max<int64_t>(1, steps / 2));
  TcvPlan p;
  p.kw = parts >= 4 ? 4 : parts >= 2 ? 2 : 1;
  const int64_t rows = tcv_rows_per_cta(p.kw);
  p.tiles = (N + rows - 1) / rows;
  if (parts > 1) {
    p.splits = static_cast<int>(std::clamp<int64_t>((parts + p.kw - 1) / p.kw, 1, std::max<int64_t>(1, steps / p.kw)));
    if (steps <= 4 * p.kw && bits == 4) {
      p.splits = 1;
      p.short_k = true;
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

}  // namespace kbit
