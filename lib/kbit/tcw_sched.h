// The work partition of the tcw kernel (kernels/tcw.cu), host + device so the CPU tests check the
// very functions the kernel and its fixup run (tests/test_tcw_sched.cpp).
#pragma once

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
// `static_bytes` of static shared memory (tcw_kernel_pad, kernels/tcw.cu): ctas_per_sm + 1 CTAs of
// this size, each with its static and the device's per-CTA reserved shared memory, exceed the SM's
// `per_sm` bytes. A multiple of 128 bytes; the caller checks it against the per-block opt-in limit
// (and the occupancy the device then reports).
constexpr int pad_smem_bytes(int per_sm, int static_bytes, int reserved, int ctas_per_sm) {
  return (per_sm / (ctas_per_sm + 1) - static_bytes - reserved + 128) / 128 * 128;
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
