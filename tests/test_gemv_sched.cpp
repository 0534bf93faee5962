// The scalar gemv kernel's launch plan (lib/kbit/gemv_sched.h): the pure function kernels/gemv.cu
// launches with, checked on the CPU for its invariants over a sweep of shapes and for the plans the
// H100 measurements were taken with (132 SMs).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>

#include "kbit/gemv_sched.h"

namespace {
constexpr int64_t kH100Sms = 132;
}  // namespace

TEST_CASE("gemv plan: every shape gets a valid partition that its workspace covers") {
  int64_t checked = 0, cluster = 0, workspace = 0;
  for (int64_t N : {1, 8, 64, 512, 576, 768, 2049, 4096, 20480, 57344})
    for (int64_t K : {32, 96, 512, 768, 2048, 2080, 4096, 14336})
      for (int64_t slots : {int64_t{132}, 2 * kH100Sms, 8 * kH100Sms})
        for (bool clusters : {false, true}) {
          const kbit::GemvPlan p = kbit::gemv_plan_for(N, K, slots, kH100Sms, clusters);
          CAPTURE(N);
          CAPTURE(K);
          CAPTURE(slots);
          CAPTURE(clusters);
          CHECK(p.tiles * kbit::kGemvRows >= N);
          CHECK((p.tiles - 1) * kbit::kGemvRows < N);
          CHECK(p.splits >= 1);
          CHECK(p.splits <= kbit::k_tiles(K));                          // no empty slice
          CHECK(p.splits <= kbit::gemv_max_splits(N, K, kH100Sms));      // the workspace suffices
          if (p.tiles <= slots) CHECK(p.tiles * p.splits <= std::max(slots, p.tiles));  // one wave
          if (p.cluster) {
            CHECK(clusters);
            CHECK(p.splits >= 2);
            CHECK(p.splits <= kbit::kGemvClusterMax);
            CHECK(p.tiles * p.splits <= kH100Sms);
            ++cluster;
          } else if (p.splits > 1) {
            ++workspace;
          }
          // The PDL plans (gemv_pdl_plan) only drop the split or the cluster: still valid, still
          // covered by the workspace, and a cluster only where the plain plan had one.
          for (int64_t M : {1, 2}) {
            CAPTURE(M);
            const kbit::GemvPlan q = kbit::gemv_pdl_plan(p, K, M);
            CHECK(q.tiles == p.tiles);
            CHECK(q.splits >= 1);
            CHECK(q.splits <= p.splits);
            CHECK((q.splits == p.splits || q.splits == 1));
            if (q.cluster) {
              CHECK(p.cluster);
              CHECK(q.splits == p.splits);
              CHECK(q.tiles * q.splits <= kbit::kGemvPdlClusterMaxCtas);
            }
            if (M == 1 && kbit::k_tiles(K) <= kbit::kGemvShortCtaKTiles) CHECK(q.splits == 1);
          }
          ++checked;
        }
  CHECK(cluster > 0);
  CHECK(workspace > 0);
  CHECK(checked == 10 * 8 * 3 * 2);
}

TEST_CASE("gemv plan: the measured H100 plans") {
  constexpr int64_t kSlots = 8 * kH100Sms;  // resident CTAs at M = 1 (up to 96-128 registers)
  SUBCASE("Qwen3 k_proj (512 x 2048): 8 row tiles x 8 slices, one cluster per tile") {
    const kbit::GemvPlan p = kbit::gemv_plan_for(512, 2048, kSlots, kH100Sms, true);
    CHECK(p.tiles == 8);
    CHECK(p.splits == 8);
    CHECK(p.cluster);
    CHECK_FALSE(kbit::gemv_plan_for(512, 2048, kSlots, kH100Sms, false).cluster);  // no clusters before sm_90
  }
  SUBCASE("Qwen3 shared_expert.down (2048 x 512) and GLM q_a_proj (768 x 2048): clusters of 2 and 8") {
    const kbit::GemvPlan d = kbit::gemv_plan_for(2048, 512, kSlots, kH100Sms, true);
    CHECK(d.tiles * d.splits == 64);
    CHECK(d.cluster);
    const kbit::GemvPlan q = kbit::gemv_plan_for(768, 2048, kSlots, kH100Sms, true);
    CHECK(q.tiles * q.splits == 96);
    CHECK(q.cluster);
  }
  SUBCASE("larger grids keep the workspace: Qwen3 q_proj (512 CTAs), Llama-3-8B q_proj (9 slices)") {
    const kbit::GemvPlan q = kbit::gemv_plan_for(4096, 2048, kSlots, kH100Sms, true);
    CHECK(q.tiles * q.splits == 512);
    CHECK_FALSE(q.cluster);
    const kbit::GemvPlan l = kbit::gemv_plan_for(4096, 4096, kSlots, kH100Sms, true);
    CHECK(l.splits == 9);
    CHECK_FALSE(l.cluster);
  }
  SUBCASE("M = 4 at two CTAs per SM: GLM attn.o_proj (2048 x 5120) limited to one wave of 8 slices") {
    const kbit::GemvPlan o = kbit::gemv_plan_for(2048, 5120, 2 * kH100Sms, kH100Sms, true);
    CHECK(o.tiles == 32);
    CHECK(o.splits == 8);  // 264 slots / 32 tiles; 256 CTAs: too many for the cluster rule
    CHECK_FALSE(o.cluster);
  }
}

TEST_CASE("gemv plan: the PDL launches that load weights before the wait (gemv_early_launch)") {
  constexpr int64_t kSlots = 4 * kH100Sms;  // M = 1, 2: 4 CTAs per SM (128 registers)
  auto early = [&](int64_t N, int64_t K) {
    const kbit::GemvPlan p = kbit::gemv_plan_for(N, K, kSlots, kH100Sms, true);
    return kbit::gemv_early_launch(p, K, kSlots);
  };
  // One k-tile per warp on full one-wave grids: Qwen3 q_proj and o_proj (512 CTAs).
  CHECK(early(4096, 2048));
  CHECK(early(2048, 4096));
  // Short CTAs on part of the slots: GLM q_b_proj (240 CTAs), Llama-3-8B k_proj (256).
  CHECK(early(5120, 768));
  CHECK(early(1024, 4096));
  // Long CTAs on most of the slots: Qwen3 dense.gate_up (480 CTAs, 11 k-tiles each), Llama-3-70B
  // gate_up (896 CTAs, more than one wave).
  CHECK(early(10240, 2048));
  CHECK(early(57344, 8192));
  // Long CTAs on 320 of 528 slots: GLM shared_experts.gate_up, where the early launch lost.
  CHECK_FALSE(early(20480, 2048));
  // Cluster grids have their own PDL placement (Qwen3 k_proj).
  const kbit::GemvPlan k = kbit::gemv_plan_for(512, 2048, kSlots, kH100Sms, true);
  REQUIRE(k.cluster);
  CHECK_FALSE(kbit::gemv_early_launch(k, 2048, kSlots));
  // The rule itself on hand-made plans: 3/4 of the slots, or at most 8 k-tiles per CTA.
  kbit::GemvPlan p;
  p.tiles = 99, p.splits = 4;  // 396 CTAs = 3/4 of 528, 64 k-tiles each at K = 16384
  CHECK(kbit::gemv_early_launch(p, 16384, kSlots));
  p.tiles = 98;  // 392 CTAs
  CHECK_FALSE(kbit::gemv_early_launch(p, 16384, kSlots));
  CHECK(kbit::gemv_early_launch(p, 2048, kSlots));   // 8 k-tiles per CTA
  CHECK_FALSE(kbit::gemv_early_launch(p, 2112, kSlots));  // 33 k-tiles in 4 slices: one of 9
}

TEST_CASE("gemv plan: PDL launches run two kinds of small grid without the split-K round (gemv_pdl_plan)") {
  constexpr int64_t kSlots = 4 * kH100Sms;
  auto pdl_plan = [&](int64_t N, int64_t K, int64_t M) {
    return kbit::gemv_pdl_plan(kbit::gemv_plan_for(N, K, kSlots, kH100Sms, true), K, M);
  };
  // Qwen3 shared_expert.down (2048 x 512): a cluster of 2 per row tile, unsplit at M = 1 only.
  REQUIRE(kbit::gemv_plan_for(2048, 512, kSlots, kH100Sms, true).cluster);
  const kbit::GemvPlan d1 = pdl_plan(2048, 512, 1), d2 = pdl_plan(2048, 512, 2);
  CHECK(d1.splits == 1);
  CHECK_FALSE(d1.cluster);
  CHECK(d1.tiles == 32);
  CHECK(kbit::gemv_early_launch(d1, 512, kSlots));
  CHECK(d2.cluster);
  CHECK(d2.splits == 2);
  // Qwen3 shared_expert.gate_up (1024 x 2048): 128 CTAs in clusters of 8 move to the workspace.
  const kbit::GemvPlan g = pdl_plan(1024, 2048, 1);
  CHECK(g.tiles * g.splits == 128);
  CHECK_FALSE(g.cluster);
  CHECK(kbit::gemv_early_launch(g, 2048, kSlots));
  CHECK_FALSE(pdl_plan(1024, 2048, 2).cluster);
  // The 64-96 CTA cluster grids keep their clusters: Qwen3 k_proj (64), GLM q_a_proj (96).
  CHECK(pdl_plan(512, 2048, 1).cluster);
  CHECK(pdl_plan(768, 2048, 2).cluster);
  // K = 576 is 9 k-tiles: split as before (GLM-like kv_b rows of K = 512 are 8).
  const kbit::GemvPlan w = kbit::gemv_plan_for(8960, 576, kSlots, kH100Sms, true);
  CHECK(pdl_plan(8960, 576, 1).splits == w.splits);
  CHECK(pdl_plan(8960, 512, 1).splits == 1);
}

TEST_CASE("gemv plan: the staged form on small grids whose warps would run k-tiles in series (gemv_use_staged)") {
  constexpr int64_t kSlots = 4 * kH100Sms;        // the register pipeline at M = 1
  constexpr int64_t kStagedSlots = 3 * kH100Sms;  // the staged k = 4 pair-table kernel (68 KB per CTA)
  auto rule = [&](int64_t N, int64_t K, bool pdl) {
    kbit::GemvPlan reg = kbit::gemv_plan_for(N, K, kSlots, kH100Sms, true);
    kbit::GemvPlan st = kbit::gemv_plan_for(N, K, kStagedSlots, kH100Sms, true);
    if (pdl) reg = kbit::gemv_pdl_plan(reg, K, 1), st = kbit::gemv_pdl_plan(st, K, 1);
    return kbit::gemv_use_staged(reg, st, K, kH100Sms);
  };
  // Unsplit K = 512 under PDL (8 k-tiles, 2 per warp), where it won: Qwen3 shared_expert.down (32
  // CTAs), GLM kv_b_proj (140). Without PDL those are a cluster grid and a split grid of 1 k-tile per warp.
  CHECK(rule(2048, 512, true));
  CHECK(rule(8960, 512, true));
  CHECK_FALSE(rule(2048, 512, false));
  CHECK_FALSE(rule(8960, 512, false));
  // Full grids where it lost: Qwen3 dense.gate_up (3 k-tiles per warp on 480 CTAs; staged 320 CTAs
  // of 4) and dense.down / GLM o_proj (2048 x 5120: 512 CTAs, one warp of each runs 2).
  CHECK(kbit::gemv_warp_ktiles(kbit::gemv_plan_for(10240, 2048, kSlots, kH100Sms, true), 2048) == 3);
  CHECK(kbit::gemv_warp_ktiles(kbit::gemv_plan_for(10240, 2048, kStagedSlots, kH100Sms, true), 2048) == 4);
  CHECK_FALSE(rule(10240, 2048, true));
  CHECK_FALSE(rule(2048, 5120, true));
  // One k-tile per warp already: Qwen3 q_proj and o_proj (512 CTAs).
  CHECK_FALSE(rule(4096, 2048, true));
  CHECK_FALSE(rule(2048, 4096, true));
  // Too many k-tiles per warp for the ring: GLM shared_experts.gate_up (8 per warp unsplit),
  // Llama-3-70B gate_up; cluster grids keep their plan: Qwen3 k_proj.
  CHECK_FALSE(rule(20480, 2048, true));
  CHECK_FALSE(rule(57344, 8192, false));
  CHECK_FALSE(rule(512, 2048, true));
  // The limits themselves on hand-made plans.
  kbit::GemvPlan p;
  p.tiles = 10, p.splits = 1;
  CHECK(kbit::gemv_staged_plan_ok(p, 1024));        // 16 k-tiles: 4 per warp
  CHECK_FALSE(kbit::gemv_staged_plan_ok(p, 1056));  // 17: 5 per warp
  CHECK(kbit::gemv_use_staged(p, p, 1024, kH100Sms));
  CHECK_FALSE(kbit::gemv_use_staged(p, p, 256, kH100Sms));  // 1 k-tile per warp
  CHECK(kbit::gemv_staged_candidate(p, 1024));            // the register plan's part of the rule
  CHECK_FALSE(kbit::gemv_staged_candidate(p, 256));
  p.tiles = 2 * kH100Sms;
  CHECK(kbit::gemv_use_staged(p, p, 1024, kH100Sms));
  p.tiles += 1;  // more than 2 CTAs per SM
  CHECK_FALSE(kbit::gemv_use_staged(p, p, 1024, kH100Sms));
  p.cluster = true;
  CHECK_FALSE(kbit::gemv_staged_plan_ok(p, 1024));
  CHECK_FALSE(kbit::gemv_staged_candidate(p, 1024));
}

TEST_CASE("gemv plan: the k = 4 pair table on multi-wave grids by the device's peak DRAM bandwidth") {
  // peak_dram_gbps from the attributes the CUDA runtime reports (memory clock in kHz, bus width in bits).
  CHECK(kbit::peak_dram_gbps(2619000, 5120) == doctest::Approx(3352.32));  // H100 SXM
  CHECK(kbit::peak_dram_gbps(3201000, 6144) == doctest::Approx(4917.0).epsilon(0.001));  // H200
  CHECK(kbit::peak_dram_gbps(1593000, 5120) == doctest::Approx(2039.04));  // H100 PCIe
  CHECK(kbit::peak_dram_gbps(0, 0) == 0.0);                                // attributes unreadable
  // On only from 4,500 GB/s: the H200, not an H100 of any form (the NVL's HBM3 at ~3,900), nor an unread device.
  CHECK_FALSE(kbit::gemv_pairs_multiwave(kbit::peak_dram_gbps(2619000, 5120)));
  CHECK_FALSE(kbit::gemv_pairs_multiwave(kbit::peak_dram_gbps(2619000, 6144)));
  CHECK_FALSE(kbit::gemv_pairs_multiwave(kbit::peak_dram_gbps(1593000, 5120)));
  CHECK_FALSE(kbit::gemv_pairs_multiwave(0.0));
  CHECK(kbit::gemv_pairs_multiwave(kbit::peak_dram_gbps(3201000, 6144)));
}

TEST_CASE("gemv plan: the balance pad holds a kernel to need CTAs per SM (gemv_balance_pad)") {
  // The H100 / H200 (233,472 bytes per SM, 1,024 reserved per CTA) and the tables' kernel (10,512 static bytes): the
  // pads of bench/results/2026-11-28-h200-balance3 -- 46,832 bytes at need 4, 66,288 at need 3.
  CHECK(kbit::gemv_balance_pad(233472, 4, 10512, 1024) == 46832);
  CHECK(kbit::gemv_balance_pad(233472, 3, 10512, 1024) == 66288);
  CHECK(kbit::gemv_balance_pad(233472, 0, 10512, 1024) == 0);
  CHECK(kbit::gemv_balance_pad(233472, 8, 34832, 1024) == 0);  // the share is below the static arrays
  // A CTA's shared memory as the occupancy calculator counts it: static + dynamic + reserved in 128-byte units.
  const auto units = [](int64_t bytes) { return (bytes + 127) / 128 * 128; };
  // 100 KB per SM (sm_120): 102,400 / 3 is not a whole number of units; the pad must still let exactly 3 CTAs fit.
  CHECK(kbit::gemv_balance_pad(102400, 3, 10512, 1024) == 34048 - 10512 - 1024);
  for (int64_t smem : {102400, 167936, 233472})
    for (int64_t static_bytes : {2080, 2192, 10512, 18448, 34832})
      for (int64_t need = 1; need <= 8; ++need) {
        CAPTURE(smem);
        CAPTURE(static_bytes);
        CAPTURE(need);
        const int64_t pad = kbit::gemv_balance_pad(smem, need, static_bytes, 1024);
        if (pad == 0) continue;
        const int64_t cta = units(static_bytes + pad + 1024);
        CHECK(cta * need <= smem);        // need CTAs fit
        CHECK(cta * (need + 1) > smem);   // one more does not
        CHECK(pad % 16 == 0);             // the static arrays' and the reserve's alignment kept
      }
}

TEST_CASE("gemv_short_narrow_fast: gemv keeps short narrow rows at M = 2, k >= 3 under PDL and M = 1, k = 2 without, on the H200 only") {
  for (double gbps : {3350.0, 3900.0, 4800.0}) {
    const bool fast = gbps >= 4500.0;  // the H200 (4,800), not an H100 SXM (3,350) or NVL (~3,900)
    for (int bits = 2; bits <= 5; ++bits) {
      CHECK(kbit::gemv_short_narrow_fast(2, bits, true, gbps) == (fast && bits >= 3));
      CHECK(kbit::gemv_short_narrow_fast(1, bits, false, gbps) == (fast && bits == 2));
      CHECK_FALSE(kbit::gemv_short_narrow_fast(3, bits, true, gbps));
      CHECK_FALSE(kbit::gemv_short_narrow_fast(2, bits, false, gbps));
      CHECK_FALSE(kbit::gemv_short_narrow_fast(1, bits, true, gbps));
    }
  }
}
