// The grouped launches' work-item bound (lib/kbit/moe_sched.h), checked against every routing of a
// few rows over a few experts: no routing makes more items than the grid covers (a missing CTA
// would leave output rows unwritten), and some routing makes exactly that many (the grid is no
// larger than it must be).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "kbit/moe_sched.h"

namespace {

// The most items any routing of `rows` rows over E experts makes at `chunk` rows per item:
// every composition rows = r_0 + ... + r_{E-1}, r_e >= 0.
int64_t brute_max_items(int E, int rows, int chunk) {
  int64_t best = 0;
  std::vector<int> r(E, 0);
  std::function<void(int, int)> place = [&](int e, int left) {
    if (e == E - 1) {
      r[e] = left;
      int64_t items = 0;
      for (int v : r) items += (v + chunk - 1) / chunk;
      best = std::max(best, items);
      return;
    }
    for (int v = 0; v <= left; ++v) {
      r[e] = v;
      place(e + 1, left - v);
    }
  };
  place(0, rows);
  return best;
}

}  // namespace

TEST_CASE("moe work items: the grid bound is the most items any routing makes") {
  int64_t checked = 0;
  for (int E = 1; E <= 5; ++E)
    for (int rows = 0; rows <= 11; ++rows)
      for (int chunk : {1, 2, 3, 4, 8, 16}) {
        CAPTURE(E);
        CAPTURE(rows);
        CAPTURE(chunk);
        CHECK(kbit::moe_max_items(E, rows, chunk) == brute_max_items(E, rows, chunk));
        ++checked;
      }
  CHECK(checked == 5 * 12 * 6);
}

TEST_CASE("moe work items: the decode routings of the target models") {
  // Qwen3-Coder-Next (512 experts, 10 per token) and GLM-4.7-Flash (64, 4 per token) at M = 1 with
  // one row per item: one CTA per routed row, not two.
  CHECK(kbit::moe_max_items(512, 10, 1) == 10);
  CHECK(kbit::moe_max_items(64, 4, 1) == 4);
  // M = 2 at two rows per item: up to 20 (resp. 8) distinct experts, one item each.
  CHECK(kbit::moe_max_items(512, 20, 2) == 20);
  CHECK(kbit::moe_max_items(64, 8, 2) == 8);
  // More rows than experts: every expert active, the rest in whole chunks.
  CHECK(kbit::moe_max_items(64, 2048, 64) == 64 + (2048 - 64) / 64);
  CHECK(kbit::moe_max_items(512, 0, 8) == 0);
}

TEST_CASE("moe rows hint: the caller's hint, else the mean rows per active expert") {
  CHECK(kbit::moe_mean_rows(512, 10) == 1);
  CHECK(kbit::moe_mean_rows(64, 4096) == 64);
  CHECK(kbit::moe_mean_rows(64, 65) == 2);  // rounded up
  CHECK(kbit::moe_mean_rows(8, 0) == 0);
  CHECK(kbit::moe_rows_hint(512, 10, 3) == 3);
  CHECK(kbit::moe_rows_hint(512, 40, 0) == 1);
}

TEST_CASE("moe dispatch: grouped_gemv keeps short rows of one token at k = 3, 4 on the H200 only") {
  // Qwen3-Coder-Next experts.down (512 experts, K = 512) at 10 routed rows: on from 4,500 GB/s of peak DRAM bandwidth
  // (the H200's 4,800), off on an H100 (3,350; the NVL's ~3,900), past 10 rows, at k = 2 and 5, on rows of K > 512,
  // and where the rows share experts (fewer experts than rows: mean > 1 row per active expert).
  CHECK(kbit::moe_gemv_short_fast(512, 10, 3, 512, 4800.0));
  CHECK(kbit::moe_gemv_short_fast(512, 10, 4, 512, 4800.0));
  CHECK(kbit::moe_gemv_short_fast(64, 1, 4, 256, 4500.0));
  CHECK(kbit::moe_gemv_short_fast(10, 10, 4, 512, 4800.0));
  CHECK_FALSE(kbit::moe_gemv_short_fast(512, 10, 4, 512, 3350.0));
  CHECK_FALSE(kbit::moe_gemv_short_fast(512, 10, 4, 512, 3900.0));
  CHECK_FALSE(kbit::moe_gemv_short_fast(512, 11, 4, 512, 4800.0));
  CHECK_FALSE(kbit::moe_gemv_short_fast(512, 20, 3, 512, 4800.0));
  CHECK_FALSE(kbit::moe_gemv_short_fast(512, 10, 2, 512, 4800.0));
  CHECK_FALSE(kbit::moe_gemv_short_fast(512, 10, 5, 512, 4800.0));
  CHECK_FALSE(kbit::moe_gemv_short_fast(512, 10, 4, 1536, 4800.0));
  CHECK_FALSE(kbit::moe_gemv_short_fast(9, 10, 4, 512, 4800.0));
  CHECK_FALSE(kbit::moe_gemv_short_fast(1, 8, 4, 512, 4800.0));
  CHECK_FALSE(kbit::moe_gemv_short_fast(5, 10, 3, 512, 4800.0));
}

TEST_CASE("moe grouped_tcw from 8 mean rows, from 6 at k = 4, 5 with the 64-token rule") {
  for (int bits = 2; bits <= 5; ++bits) {
    CHECK(kbit::moe_tcw_min_mean(bits, false) == 8);
    CHECK(kbit::moe_tcw_min_mean(bits, true) == (bits == 4 || bits == 5 ? 6 : 8));
  }
}

TEST_CASE("moe grouped_tcw's token tile: the 64-token rule at k = 3..5 where two CTAs per SM fit, k = 2 its own") {
  // grouped_tcw_mn64_rule: k >= 3 only, and only where the 64-token kernel holds two CTAs per SM.
  CHECK_FALSE(kbit::grouped_tcw_mn64_rule(2, true));
  CHECK(kbit::grouped_tcw_mn64_rule(3, true));
  CHECK(kbit::grouped_tcw_mn64_rule(4, true));
  CHECK(kbit::grouped_tcw_mn64_rule(5, true));
  for (int bits = 2; bits <= 5; ++bits) CHECK_FALSE(kbit::grouped_tcw_mn64_rule(bits, false));
  struct Rule {
    int bits;
    bool mn64;
    int64_t mean;
    int mn;
  };
  for (const Rule& r : {Rule{2, false, 1, 32}, Rule{2, false, 16, 32}, Rule{2, false, 17, 64}, Rule{2, false, 160, 64},
                        Rule{2, false, 161, 256}, Rule{2, true, 16, 32}, Rule{2, true, 161, 256}, Rule{3, true, 1, 32},
                        Rule{3, true, 8, 32}, Rule{3, true, 9, 64}, Rule{3, true, 96, 64}, Rule{3, true, 97, 256},
                        Rule{4, true, 1, 64}, Rule{4, true, 8, 64}, Rule{4, true, 96, 64}, Rule{4, true, 97, 256},
                        Rule{5, true, 1, 64}, Rule{5, true, 8, 64}, Rule{5, true, 96, 64}, Rule{5, true, 97, 256},
                        Rule{3, false, 48, 32}, Rule{3, false, 49, 128}, Rule{4, false, 72, 128}, Rule{4, false, 73, 256},
                        Rule{5, false, 1, 32}, Rule{5, false, 48, 32}, Rule{5, false, 49, 128}, Rule{5, false, 72, 128},
                        Rule{5, false, 73, 256}}) {
    CAPTURE(r.bits);
    CAPTURE(r.mn64);
    CAPTURE(r.mean);
    CHECK(kbit::grouped_tcw_tile(r.bits, r.mn64, r.mean) == r.mn);
  }
}

TEST_CASE("moe grouped_tcv's items of two n8 tiles only above 8 mean rows per active expert") {
  using kbit::grouped_tcv_two_tiles;
  using kbit::moe_mean_rows;
  CHECK_FALSE(grouped_tcv_two_tiles(moe_mean_rows(512, 160)));  // Qwen3-Coder-Next experts at 16 tokens: mean 1
  CHECK_FALSE(grouped_tcv_two_tiles(moe_mean_rows(64, 64)));    // GLM-4.7-Flash experts at 16 tokens: mean 1
  CHECK_FALSE(grouped_tcv_two_tiles(moe_mean_rows(64, 512)));   // mean 8
  CHECK(grouped_tcv_two_tiles(moe_mean_rows(64, 513)));         // mean 9 (rounded up)
  CHECK(grouped_tcv_two_tiles(moe_mean_rows(1, 9)));
  CHECK_FALSE(grouped_tcv_two_tiles(moe_mean_rows(1, 8)));
  CHECK_FALSE(grouped_tcv_two_tiles(moe_mean_rows(8, 0)));
}

TEST_CASE("moe grouped_tcv's item-major grid from 40 routed rows") {
  CHECK_FALSE(kbit::grouped_tcv_item_major_rule(0));
  CHECK_FALSE(kbit::grouped_tcv_item_major_rule(32));  // GLM-4.7-Flash experts at 8 tokens (top-4)
  CHECK_FALSE(kbit::grouped_tcv_item_major_rule(39));
  CHECK(kbit::grouped_tcv_item_major_rule(40));  // Qwen3-Coder-Next experts at 4 tokens (top-10)
  CHECK(kbit::grouped_tcv_item_major_rule(48));  // GLM-4.7-Flash experts at 12 tokens
}
