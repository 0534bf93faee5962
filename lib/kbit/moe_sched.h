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

// The mean routed rows per active expert (moe_mean_rows) from which the MoE dispatch takes grouped_tcw (sm_90a) over
// grouped_tcv: 8 (H100, bench/results/2026-11-25-h100-groupedtcw), and 6 at k = 4 on the pair table where grouped_tcw's
// 64-token kernels hold two CTAs per SM and take its 64-token tile rule (`pairs`: kernels' grouped_tcw_mn64; since the
// forty-fourth session, measured on the H200 only, applied on the H100 too). There, on the H200
// (bench/results/2026-11-28-h200-gtcwmn64/final, best of 2, us, grouped_tcv against grouped_tcw): at 6 mean rows
// GLM-4.7-Flash experts (M = 96) down 66.62 / 64.70, gate_up 123.36 / 120.03; at 7 Qwen3-Coder-Next experts (M = 320)
// 210.98 / 185.13, 327.31 / 304.19; at 5 they split (Qwen3 M = 256 1.02-1.08x for grouped_tcw, GLM M = 80 0.96-0.97x)
// and at 4 grouped_tcv led on GLM (M = 64, 0.88-0.93x) while Qwen3 (M = 160) split (down 1.03x, gate_up 0.94x). k = 3 stays at 8 (grouped_tcw 0.86-0.97x at 5-6 mean rows but
// Qwen3 experts.down at 7, 1.02x).
inline int64_t moe_tcw_min_mean(int bits, bool pairs) { return bits == 4 && pairs ? 6 : 8; }

}  // namespace kbit
