// Host-side arithmetic of the grouped (MoE) launches (kernels/*.cu): the rows-per-expert figures
// the dispatch is chosen by and the number of work items a grid must cover. Pure functions, so the
// CPU tests check the very counts the kernels launch with (tests/test_moe_sched.cpp).
#pragma once

#include <cstdint>

#include "kbit/gemv_sched.h"

namespace kbit {

// Mean routed rows per active expert, rounded up (at most min(E, total_rows) experts are active):
// what the MoE dispatch and grouped_tcw's token tile are chosen by.
inline int64_t moe_mean_rows(int64_t E, int64_t total_rows) {
  const int64_t m = E < total_rows ? E : total_rows, active = m > 1 ? m : 1;
  return (total_rows + active - 1) / active;
}

// MoeArgs::max_rows_per_expert_hint as moe_linear hands it to the launchers: the caller's, or the
// mean rows per active expert where the caller gave none.
inline int64_t moe_rows_hint(int64_t E, int64_t total_rows, int hint) {
  return hint > 0 ? hint : moe_mean_rows(E, total_rows);
}

// The most work items (chunks of up to `chunk` consecutive rows of one expert) that total_rows
// routed rows can make, whatever the routing: the grouped grids launch this many item CTAs, and
// those past the real count exit after the offsets scan. With n <= min(E, total_rows) active
// experts of r_e >= 1 rows, sum ceil(r_e / chunk) <= (total_rows + n (chunk - 1)) / chunk
// = n + (total_rows - n) / chunk, largest at the largest n; one expert holding every row the
// others leave (one each) reaches it. The looser n + total_rows / chunk launched twice the CTAs
// needed at chunk 1 (grouped_gemv at one row per expert).
inline int64_t moe_max_items(int64_t E, int64_t total_rows, int chunk) {
  const int64_t n = E < total_rows ? E : total_rows;
  return n + (total_rows - n) / chunk;
}

// Whether grouped_tcv's items hold up to 16 rows (two n8 token tiles, NT = 2) rather than 8, given its rows per expert
// (kernels' grouped_tcv_rows: the mean routed rows per active expert, moe_mean_rows): only above 8. Until the
// forty-fifth session the launcher went by MoeArgs::max_rows_per_expert_hint, the most rows of any expert, and at
// decode sizes one popular expert took every item to two tiles, each costing ~1.4x one tile's step (two n8 tiles' B
// fragments and mma, more registers) for the ~1 row most items hold; with one tile such an expert's rows split into
// items of 8 instead, one more decode of its weights. H200 (bench/results/2026-11-28-h200-s45land): Qwen3-Coder-Next
// experts at M = 16 1.10-1.20x at every k.
inline bool grouped_tcv_two_tiles(int64_t rows_per_expert) { return rows_per_expert > 8; }

// Whether grouped_tcv launches its CTAs item-major (an item's row tiles together, the items moe_max_items allows
// past the real count last) rather than row-tile-major (kernels/tcv.cu): from 40 routed rows. H200, two reps, best of
// 2 (bench/results/2026-11-28-h200-s45im: grouped_tcv and automatic_pdl on the Qwen3-Coder-Next and GLM-4.7-Flash
// experts at M = 1..16, k = 2, 4). Item-major everywhere (-s45im/im), automatic_pdl: from 40 routed rows (Qwen3
// M >= 4, GLM M >= 12) 1.041x geomean over 24 rows (0.993-1.091; Qwen3 experts.down M = 4, k = 4 13.30 -> 12.38 us,
// GLM experts.down M = 16, k = 4 28.91 -> 26.51); below, 1.000x over 24 (0.975-1.037: at 32 rows GLM experts.down lost
// 2.5% at k = 2, gate_up gained 3.5%). The threshold was read off that run and checked in a second (-s45im/rule):
// 1.037x over the 24 rows it moves (0.988-1.086; the one loss Qwen3 experts.gate_up M = 16, k = 2, 0.99x in both),
// 0.999x on the others. Why the order matters was not profiled.
inline bool grouped_tcv_item_major_rule(int64_t total_rows) { return total_rows >= 40; }

// Whether the MoE dispatch keeps grouped_gemv at k = 3, 4 on short expert rows (K <= 512) of at most 10 routed rows
// spread one per expert (E >= total_rows: mean one row per active expert, as the measured routing, top-10 of 512
// experts at one token), on a GPU of `peak_gbps` peak DRAM bandwidth. On the H200 grouped_gemv led there in three reps under PDL (Qwen3-Coder-
// Next experts.down at 10 rows: 5.13 / 5.37 us against grouped_tcv's 5.45 / 5.69 at k = 3 / 4;
// bench/results/2026-11-28-h200-moem1) while on the H100 grouped_tcv tied or led (5.30 / 5.56 against 5.31 / 5.65,
// bench/results/2026-11-27-h100-moeshort): on fast_dram GPUs (gemv_sched.h: the H200, not an H100 of any form). Not
// k = 2 (4.68 against 4.68) nor 20 rows (10.1 / 10.5 against 7.0 / 7.4).
inline bool moe_gemv_short_fast(int64_t E, int64_t total_rows, int bits, int64_t K, double peak_gbps) {
  return total_rows <= 10 && moe_mean_rows(E, total_rows) <= 1 && (bits == 3 || bits == 4) && K <= 512 &&
         fast_dram(peak_gbps);
}

// Whether grouped_tcw takes its 64-token tile rule (grouped_tcw_tile) at k = `bits`, given whether that k's 64-token
// kernel holds two CTAs per SM (kernels/grouped_tcw.cu: k = 3, 5, and k = 4 on the pair table; k = 2's do too, but
// k = 2 keeps its own rule).
inline bool grouped_tcw_mn64_rule(int bits, bool two_per_sm64) { return bits >= 3 && two_per_sm64; }

// grouped_tcw's token tile (32, 64, 128 or 256 tokens) at k = `bits` and `mean` routed rows per active expert
// (moe_mean_rows); `mn64`: grouped_tcw_mn64_rule. Each item then runs at the least power-of-two width of the tile
// (>= 32) that holds its rows, so a larger tile costs little on an expert's partial last item and saves decodes (one
// per item and row tile).
// - mn64 (k = 3, k = 4 on the pair table since the forty-fourth session; k = 5 since the forty-fifth): 64 to 96 mean
//   rows (k = 3: 32 to 8), then 256. Measured on the H200 only, applied on the H100 too (bench/results/2026-11-28-h200-gtcwmn64; the tile forced to
//   64 / 128 / 256 against the previous rule, grouped_tcw, f16, median of 1-3 reps; us): 64 led at every mean of 10 to
//   80 rows, 1.02-1.23x over the previous rule's 32 / 128 / 256 (Qwen3-Coder-Next at 10, 20, 40, 80; GLM-4.7-Flash at
//   32, 64: experts.gate_up at M = 1024, k = 4, 279.8 -> 232.2, experts.down 151.6 -> 123.1); at 128 mean rows 256 led
//   on GLM experts.gate_up (365.8 against 407.5 at k = 3, 377.6 against 395.8 at k = 4) and on down at k = 3 (206.4 /
//   215.8; k = 4 tied, 210.8 / 210.4); at 256 (GLM M = 4096) 256 led by 1.15-1.22x over 64 (1.09-1.12x over 128). 96
//   lies between the measured 80 and 128. At 8 mean rows (GLM M = 128; -gtcwmn64/land, automatic, best of 2) 32 kept
//   k = 3 (down 72.4 against 74.2, gate_up 135.7 against 136.3) and 64 took k = 4 (67.1 against 67.7, 121.5 / 125.3).
//   k = 5 (bench/results/2026-11-28-h200-s45first: the 64-token kernels at two CTAs per SM and this rule against one
//   CTA and the previous rule, grouped_tcw, f16, best of 2, M = 256..2048 on both models): 1.066x geomean over 16
//   rows, 0.997-1.215x (Qwen3 experts at 5-40 mean rows 1.01-1.22x; GLM at 16-32 1.02-1.18x, at 64 and 128 within
//   0.3%); at 5 mean rows (Qwen3 M = 256) 64 beat 32 (gate_up 433.2 against 449.9), so k = 5 takes 64 from 1.
// - Otherwise (k = 4 without the pair table, and k = 3..5 with KBIT_GTCW_MN64=0), measured with the widths on
//   the H100 (bench/results/2026-11-25-h100-gtcwwidths, the tile forced to 64 / 128 / 256 against this rule's previous
//   form, every 64-token kernel then at one CTA per SM but k = 2's; us, k = 4 unless stated):
//   - k >= 3, <= 48 mean rows: 32 (Qwen3-Coder-Next experts at 20 and 40 mean rows, M = 1024 / 2048: down 308 / 429
//     vs 372 / 435 with 256; before the widths, GLM-4.7-Flash experts.down at 32 mean rows, M = 512: 110 vs 127 with
//     64).
//   - k >= 3, <= 72: 128 (GLM M = 1024, 64 rows: gate_up 271 vs 308 with 64, down 150 vs 147 with 256).
//   - k >= 3, above: 256 (Qwen3 M = 4096, 80 rows: down 579 vs 611 with 128; GLM M = 2048, 128 rows: gate_up 400 vs
//     419 with 128 but down 231 vs 227 at k = 4, 243 vs 231 at k = 3; GLM M = 4096).
//   - k = 2 (byte tables, the cheapest decode): 32 to 16 mean rows (not re-measured then), 64 to 160 (Qwen3 M = 1024
//     / 2048: gate_up 402 / 532 vs 424 / 593 with 32; GLM M = 2048 within 4% of 128 and 256), then 256 (GLM M = 4096:
//     down 384 vs 397 with 128). It holds on the H200 (-gtcwmn64/k2screen, one run, M = 128..2048: the fastest tile on
//     18 of 20 rows, within 1.7% on the other two).
inline int grouped_tcw_tile(int bits, bool mn64, int64_t mean) {
  if (bits == 2) return mean <= 16 ? 32 : mean <= 160 ? 64 : 256;
  if (mn64) return bits == 3 && mean <= 8 ? 32 : mean <= 96 ? 64 : 256;
  return mean <= 48 ? 32 : mean <= 72 ? 128 : 256;
}

// The mean routed rows per active expert (moe_mean_rows) from which the MoE dispatch takes grouped_tcw (sm_90a) over
// grouped_tcv: 8 (H100, bench/results/2026-11-25-h100-groupedtcw), and 6 at k = 4 on the pair table and at k = 5 where
// grouped_tcw's 64-token kernels hold two CTAs per SM and take its 64-token tile rule (`mn64`: kernels'
// grouped_tcw_mn64; k = 4 since the forty-fourth session, k = 5 since the forty-fifth; measured on the H200 only,
// applied on the H100 too). There, on the H200
// (bench/results/2026-11-28-h200-gtcwmn64/final, best of 2, us, grouped_tcv against grouped_tcw): at 6 mean rows
// GLM-4.7-Flash experts (M = 96) down 66.62 / 64.70, gate_up 123.36 / 120.03; at 7 Qwen3-Coder-Next experts (M = 320)
// 210.98 / 185.13, 327.31 / 304.19; at 5 they split (Qwen3 M = 256 1.02-1.08x for grouped_tcw, GLM M = 80 0.96-0.97x)
// and at 4 grouped_tcv led on GLM (M = 64, 0.88-0.93x) while Qwen3 (M = 160) split (down 1.03x, gate_up 0.94x). k = 3 stays at 8 (grouped_tcw 0.86-0.97x at 5-6 mean rows but
// Qwen3 experts.down at 7, 1.02x). k = 5 (bench/results/2026-11-28-h200-s45land, one rep, grouped_tcv against
// grouped_tcw at its 64-token tile): at 6 mean rows GLM experts (M = 96) down 98.08 / 95.84, gate_up 187.63 / 181.88;
// at 7 Qwen3 experts (M = 320) 288.66 / 270.93, 501.93 / 461.15; at 5 (Qwen3 M = 256, -s45first) grouped_tcv led,
// 247.8 / 261.4 and 417.5 / 433.2.
inline int64_t moe_tcw_min_mean(int bits, bool mn64) { return (bits == 4 || bits == 5) && mn64 ? 6 : 8; }

}  // namespace kbit
