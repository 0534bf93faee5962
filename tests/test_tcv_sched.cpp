// The tcv kernel's launch plan (lib/kbit/tcv_sched.h): the pure function kernels/tcv.cu launches
// with, checked on the CPU for its invariants over a sweep of shapes and for the plans the H100
// measurements were taken with (792 resident slots: 6 CTAs of 80 registers on 132 SMs at M <= 8).
#include <doctest/doctest.h>

#include <cstdint>

#include "kbit/tcv_sched.h"

namespace {
constexpr int64_t kH100Slots = 6 * 132;
}

TEST_CASE("tcv plan: every shape gets a valid partition") {
  int64_t checked = 0, short_k = 0;
  for (int64_t N : {1, 8, 64, 512, 576, 2049, 5120, 10240, 20480, 57344})
    for (int64_t K : {32, 96, 512, 768, 2048, 2080, 4096, 14336, 28672})
      for (int bits : {2, 3, 4, 5})
        for (int64_t M : {1, 8, 16})
          for (int64_t slots : {int64_t{132}, kH100Slots, int64_t{5 * 132}}) {
            const kbit::TcvPlan p = kbit::tcv_plan_for(M, N, K, bits, slots);
            const int64_t steps = kbit::tcv_steps(K), rows = kbit::tcv_rows_per_cta(p.kw);
            CAPTURE(N);
            CAPTURE(K);
            CAPTURE(bits);
            CAPTURE(slots);
            REQUIRE((p.kw == 1 || p.kw == 2 || p.kw == 4));
            CHECK(p.tiles * rows >= N);             // the row tiles cover N ...
            CHECK((p.tiles - 1) * rows < N);        // ... with no empty tile
            CHECK(p.splits >= 1);
            CHECK(int64_t{p.kw} * p.splits <= steps);  // every warp of every slice has a step
            if (p.short_k) {
              CHECK(p.splits == 1);
              CHECK(bits == 4);
              CHECK(steps <= 4 * p.kw);
              ++short_k;
            }
            ++checked;
          }
  CHECK(short_k > 0);  // the sweep reaches the one-pass rule
  CHECK(checked == 10 * 9 * 4 * 3 * 3);
}

TEST_CASE("tcv plan: the measured H100 plans") {
  SUBCASE("Qwen3 attn.k_proj (512 x 2048): one pass of 32 CTAs at k = 4, split in two at k = 2") {
    const kbit::TcvPlan p4 = kbit::tcv_plan_for(4, 512, 2048, 4, kH100Slots);
    CHECK(p4.kw == 4);
    CHECK(p4.tiles == 32);
    CHECK(p4.splits == 1);
    CHECK(p4.short_k);
    const kbit::TcvPlan p2 = kbit::tcv_plan_for(4, 512, 2048, 2, kH100Slots);
    CHECK(p2.kw == 4);
    CHECK(p2.splits == 2);
    CHECK_FALSE(p2.short_k);
  }
  SUBCASE("Qwen3 mlp.dense.gate_up (10240 x 2048) and GLM attn.q_b_proj (5120 x 768): one pass") {
    CHECK(kbit::tcv_plan_for(1, 10240, 2048, 4, kH100Slots).short_k);
    const kbit::TcvPlan q = kbit::tcv_plan_for(1, 5120, 768, 4, kH100Slots);
    CHECK(q.kw == 2);
    CHECK(q.splits == 1);
    CHECK(q.short_k);
  }
  SUBCASE("long K and wide N keep their split-K plans") {
    const kbit::TcvPlan k = kbit::tcv_plan_for(1, 1024, 8192, 4, kH100Slots);  // Llama-3-70B k_proj
    CHECK(k.kw == 4);
    CHECK(k.splits == 8);
    CHECK_FALSE(k.short_k);
    const kbit::TcvPlan g = kbit::tcv_plan_for(1, 20480, 2048, 4, kH100Slots);  // GLM shared_experts.gate_up
    CHECK(g.kw == 2);
    CHECK(g.splits == 2);
    CHECK_FALSE(g.short_k);
    const kbit::TcvPlan u = kbit::tcv_plan_for(1, 57344, 8192, 4, kH100Slots);  // Llama-3-70B gate_up
    CHECK(u.kw == 1);
    CHECK(u.tiles == 896);
    CHECK(u.splits == 6);  // 7 waves of 11 steps (+ partials) against 2 waves of 64, by the wave model
    CHECK_FALSE(u.short_k);
  }
}
