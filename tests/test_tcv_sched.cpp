// The tcv kernel's launch plan (lib/kbit/tcv_sched.h): the pure function kernels/tcv.cu launches
// with, checked on the CPU for its invariants over a sweep of shapes and for the plans the H100
// measurements were taken with (792 resident slots: 6 CTAs of 80 registers on 132 SMs at M <= 8).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "kbit/tcv_sched.h"

namespace {
constexpr int64_t kH100Sms = 132;
constexpr int64_t kH100Slots = 6 * kH100Sms;
}  // namespace

TEST_CASE("tcv plan: every shape gets a valid partition") {
  int64_t checked = 0, short_k = 0, cluster = 0;
  for (int64_t N : {1, 8, 64, 512, 576, 2049, 5120, 10240, 20480, 57344})
    for (int64_t K : {32, 96, 512, 768, 2048, 2080, 4096, 14336, 28672})
      for (int bits : {2, 3, 4, 5})
        for (int64_t M : {1, 8, 16})
          for (int64_t slots : {kH100Sms, kH100Slots, 5 * kH100Sms}) {
            const kbit::TcvPlan p = kbit::tcv_plan_for(M, N, K, bits, slots, kH100Sms);
            const int64_t steps = kbit::tcv_steps(K), rows = kbit::tcv_rows_per_cta(p.kw);
            CAPTURE(N);
            CAPTURE(K);
            CAPTURE(bits);
            CAPTURE(M);
            CAPTURE(slots);
            REQUIRE((p.kw == 1 || p.kw == 2 || p.kw == 4));
            CHECK(p.steps == steps);
            // The split branch (more than one part of K wanted: narrow N) cuts its workspace grids to
            // one wave; only the large-N branch may run split grids of several waves.
            const int64_t groups16 = (N + 15) / 16, want = (slots * kbit::kTcvWarps + groups16 - 1) / groups16;
            if (want > 1 && steps >= 4 && p.splits > 1 && !p.cluster) CHECK(p.tiles * p.splits <= slots);
            CHECK(p.tiles * rows >= N);             // the row tiles cover N ...
            CHECK((p.tiles - 1) * rows < N);        // ... with no empty tile
            CHECK(p.splits >= 1);
            CHECK(int64_t{p.kw} * p.splits <= steps);  // every warp of every slice has a step
            CHECK_FALSE((p.short_k && p.cluster));
            if (p.short_k) {
              CHECK(p.splits == 1);
              CHECK(steps <= 4 * p.kw);
              ++short_k;
            }
            if (p.cluster) {
              // A cluster: 2..8 slices (the portable size), its sums fit the shared buffer the
              // slices publish them in, and the grid is at most 4 CTAs per SM.
              CHECK(p.splits >= 2);
              CHECK(p.splits <= kbit::kTcvClusterMax);
              CHECK((kbit::kTcvWarps / p.kw) * 32 * (M > 8 ? 2 : 1) * 4 <= kbit::kTcvClusterFloats);
              CHECK(p.tiles * p.splits <= 4 * kH100Sms);
              ++cluster;
            }
            ++checked;
          }
  CHECK(short_k > 0);  // the sweep reaches the one-pass rule ...
  CHECK(cluster > 0);  // ... and the cluster rule
  CHECK(checked == 10 * 9 * 4 * 3 * 3);
}

TEST_CASE("tcv plan: the measured H100 plans") {
  SUBCASE("narrow weights split K in a cluster at every k: Qwen3 k_proj, GLM q_a_proj") {
    for (int bits = 2; bits <= 5; ++bits) {
      const kbit::TcvPlan p = kbit::tcv_plan_for(4, 512, 2048, bits, kH100Slots, kH100Sms);
      CHECK(p.kw == 4);
      CHECK(p.tiles == 32);
      CHECK(p.splits == 2);
      CHECK(p.cluster);
      CHECK_FALSE(p.short_k);
      CHECK(kbit::tcv_plan_for(1, 768, 2048, bits, kH100Slots, kH100Sms).cluster);
    }
  }
  SUBCASE("wide short-K weights run one pass at every k: Qwen3 q_proj, dense.gate_up, GLM q_b_proj") {
    for (int bits = 2; bits <= 5; ++bits) {
      const kbit::TcvPlan q = kbit::tcv_plan_for(1, 4096, 2048, bits, kH100Slots, kH100Sms);
      CHECK(q.kw == 4);
      CHECK(q.tiles == 256);  // 2 slices would be 512 CTAs: more than one per SM
      CHECK(q.splits == 1);
      CHECK(q.short_k);
      CHECK(kbit::tcv_plan_for(1, 10240, 2048, bits, kH100Slots, kH100Sms).short_k);
      const kbit::TcvPlan b = kbit::tcv_plan_for(1, 5120, 768, bits, kH100Slots, kH100Sms);
      CHECK(b.kw == 2);
      CHECK(b.splits == 1);
      CHECK(b.short_k);
    }
  }
  SUBCASE("long K: clusters of 4 up to 4 CTAs per SM, the workspace beyond") {
    const kbit::TcvPlan k8 = kbit::tcv_plan_for(4, 1024, 4096, 4, kH100Slots, kH100Sms);  // Llama-3-8B k_proj
    CHECK(k8.tiles * k8.splits == 256);
    CHECK(k8.splits == 4);
    CHECK(k8.cluster);
    const kbit::TcvPlan o = kbit::tcv_plan_for(4, 2048, 4096, 4, kH100Slots, kH100Sms);  // Qwen3 o_proj
    CHECK(o.tiles * o.splits == 512);
    CHECK(o.cluster);
    const kbit::TcvPlan k = kbit::tcv_plan_for(1, 1024, 8192, 4, kH100Slots, kH100Sms);  // Llama-3-70B k_proj
    CHECK(k.kw == 4);
    CHECK(k.splits == 8);  // 8-CTA clusters on 512 CTAs: not measured to win (gemv's lost)
    CHECK_FALSE(k.cluster);
    CHECK_FALSE(k.short_k);
    // The workspace's slices are cut to one wave (bench/results/2026-11-27-h100-tcvwave): Llama-3-8B
    // q_proj 1024 CTAs of 4 slices -> 768 of 3, Llama-3-70B q_proj and down 1024 of 2 -> 512 of 1, GLM
    // shared_experts.down 896 of 7 -> 768 of 6.
    const kbit::TcvPlan q8 = kbit::tcv_plan_for(1, 4096, 4096, 4, kH100Slots, kH100Sms);  // Llama-3-8B q_proj
    CHECK(q8.tiles == 256);
    CHECK(q8.splits == 3);
    CHECK_FALSE(q8.cluster);
    for (int64_t K : {8192, 28672}) {  // Llama-3-70B q_proj, down
      const kbit::TcvPlan q70 = kbit::tcv_plan_for(4, 8192, K, 4, kH100Slots, kH100Sms);
      CHECK(q70.kw == 4);
      CHECK(q70.tiles == 512);
      CHECK(q70.splits == 1);
      CHECK_FALSE(q70.cluster);
      CHECK_FALSE(q70.short_k);
    }
    const kbit::TcvPlan sd = kbit::tcv_plan_for(4, 2048, 10240, 4, kH100Slots, kH100Sms);  // GLM shared_experts.down
    CHECK(sd.tiles * sd.splits == 768);
    CHECK(sd.splits == 6);
  }
  SUBCASE("wide N keeps its split-K plans through the workspace, in one wave") {
    const kbit::TcvPlan g = kbit::tcv_plan_for(1, 20480, 2048, 4, kH100Slots, kH100Sms);  // GLM shared_experts.gate_up
    CHECK(g.kw == 2);
    CHECK(g.tiles == 640);
    CHECK(g.splits == 1);  // 2 slices were 1280 CTAs (1.6 waves)
    CHECK_FALSE(g.short_k);
    CHECK_FALSE(g.cluster);
    const kbit::TcvPlan u = kbit::tcv_plan_for(1, 57344, 8192, 4, kH100Slots, kH100Sms);  // Llama-3-70B gate_up
    CHECK(u.kw == 1);
    CHECK(u.tiles == 896);
    CHECK(u.splits == 6);  // 7 waves of 11 steps (+ partials) against 2 waves of 64, by the wave model
    CHECK_FALSE(u.short_k);
    CHECK_FALSE(u.cluster);
  }
}

TEST_CASE("tcv plan: the PDL launches that load weights before the wait (tcv_early_launch)") {
  // The one-wave grids that are neither cluster nor one-pass plans (bench/results/2026-11-26-h100-
  // tcvearly): Qwen3 dense.down / GLM o_proj (640 CTAs of 5 slices), Qwen3 shared_expert.down and
  // GLM kv_b_proj (K = 512, unsplit: 64 and 280 CTAs), Llama-3-70B k/v_proj (512 CTAs of 8 slices).
  for (int64_t M : {1, 4, 16})
    for (int bits = 2; bits <= 5; ++bits) {
      CAPTURE(M);
      CAPTURE(bits);
      const kbit::TcvPlan d = kbit::tcv_plan_for(M, 2048, 5120, bits, kH100Slots, kH100Sms);
      CHECK(d.tiles * d.splits == 640);
      CHECK(d.slots == kH100Slots);
      CHECK(kbit::tcv_early_launch(d));
      CHECK(kbit::tcv_early_launch(kbit::tcv_plan_for(M, 2048, 512, bits, kH100Slots, kH100Sms)));
      CHECK(kbit::tcv_early_launch(kbit::tcv_plan_for(M, 8960, 512, bits, kH100Slots, kH100Sms)));
      CHECK(kbit::tcv_early_launch(kbit::tcv_plan_for(M, 1024, 8192, bits, kH100Slots, kH100Sms)));
      // Latency plans have their own early placement: Qwen3 q_proj (one pass), o_proj (clusters).
      CHECK_FALSE(kbit::tcv_early_launch(kbit::tcv_plan_for(M, 4096, 2048, bits, kH100Slots, kH100Sms)));
      CHECK_FALSE(kbit::tcv_early_launch(kbit::tcv_plan_for(M, 2048, 4096, bits, kH100Slots, kH100Sms)));
      // More than one wave, where the early launch lost: Llama-3-8B gate_up (896 unsplit CTAs).
      const kbit::TcvPlan p = kbit::tcv_plan_for(M, 28672, 4096, bits, kH100Slots, kH100Sms);
      CHECK(p.tiles * p.splits > kH100Slots);
      CHECK_FALSE(kbit::tcv_early_launch(p));
      // The workspace grids cut to one wave launch early (bench/results/2026-11-27-h100-tcvwave):
      // Llama-3-8B q/o_proj and down, GLM shared_experts.down and gate_up (unsplit, 8 steps per warp).
      for (auto [N, K] : {std::pair<int64_t, int64_t>{4096, 4096}, {4096, 14336}, {2048, 10240}, {20480, 2048}}) {
        const kbit::TcvPlan e = kbit::tcv_plan_for(M, N, K, bits, kH100Slots, kH100Sms);
        CHECK_MESSAGE(e.tiles * e.splits <= kH100Slots, N, " x ", K);
        CHECK_MESSAGE(kbit::tcv_early_launch(e), N, " x ", K);
      }
      // Not one slice per tile of long warps: Llama-3-70B q_proj and down (512 CTAs, 16 and 56 steps
      // per warp) lost 0.68-0.90x early and won launched stage-first.
      for (int64_t K : {8192, 28672}) {
        const kbit::TcvPlan u = kbit::tcv_plan_for(M, 8192, K, bits, kH100Slots, kH100Sms);
        CHECK(u.splits == 1);
        CHECK(u.tiles * u.splits <= kH100Slots);
        CHECK_FALSE(kbit::tcv_early_launch(u));
      }
    }
  // The bound is the slots the plan was made for: on fewer slots the same shape's 640 CTAs of 5 slices
  // are cut to one wave of 512 (4 slices), which launches early.
  const kbit::TcvPlan few = kbit::tcv_plan_for(1, 2048, 5120, 4, 4 * kH100Sms, kH100Sms);
  CHECK(few.tiles * few.splits == 512);
  CHECK(kbit::tcv_early_launch(few));
}

TEST_CASE("tcv plan: without thread-block clusters (before sm_90) no cluster plans") {
  for (int64_t N : {512, 768, 1024, 2048, 4096})
    for (int64_t K : {768, 2048, 4096})
      for (int bits = 2; bits <= 5; ++bits) {
        const kbit::TcvPlan p = kbit::tcv_plan_for(4, N, K, bits, kH100Slots, kH100Sms, false);
        CHECK_FALSE(p.cluster);
      }
  // Qwen3 k_proj falls back to the one pass (16 steps, 4 per warp), Llama-3-8B k_proj to the workspace.
  const kbit::TcvPlan k = kbit::tcv_plan_for(4, 512, 2048, 3, kH100Slots, kH100Sms, false);
  CHECK(k.short_k);
  CHECK(k.splits == 1);
  const kbit::TcvPlan l = kbit::tcv_plan_for(4, 1024, 4096, 3, kH100Slots, kH100Sms, false);
  CHECK(l.splits == 4);
  CHECK_FALSE(l.short_k);
}

TEST_CASE("grouped tcv: the in-CTA K split stays in one wave with a pair table") {
  // grouped_tcv_kw on the H100's 792 slots, the MoE projections of bench/results/2026-11-27-h100-moekw.
  using kbit::grouped_tcv_kw;
  // Qwen3-Coder-Next experts.gate_up (1024 x 2048, 16 steps): M = 1 (10 experts) kw = 4, 640 CTAs,
  // either way; M = 2 (20) 640 CTAs of kw = 2 with the table, 1280 of kw = 4 without it.
  CHECK(grouped_tcv_kw(10, 1024, 16, kH100Slots, true) == 4);
  CHECK(grouped_tcv_kw(10, 1024, 16, kH100Slots, false) == 4);
  CHECK(grouped_tcv_kw(20, 1024, 16, kH100Slots, true) == 2);
  CHECK(grouped_tcv_kw(20, 1024, 16, kH100Slots, false) == 4);
  // experts.down (2048 x 512, 4 steps) at M = 2: kw = 1 (640 CTAs) with the table, 2 (1280) without.
  CHECK(grouped_tcv_kw(20, 2048, 4, kH100Slots, true) == 1);
  CHECK(grouped_tcv_kw(20, 2048, 4, kH100Slots, false) == 2);
  // GLM-4.7-Flash experts.down (2048 x 1536, 12 steps) at M = 3 (12 experts): 768 CTAs of kw = 2.
  CHECK(grouped_tcv_kw(12, 2048, 12, kH100Slots, true) == 2);
  // Every warp keeps a step, and with the table the grid never exceeds the slots once kw > 1.
  for (int64_t items : {1, 3, 10, 20, 40, 512})
    for (int64_t N : {64, 1024, 2048, 3072})
      for (int64_t steps : {1, 2, 4, 12, 16})
        for (bool table : {true, false}) {
          const int kw = grouped_tcv_kw(items, N, steps, kH100Slots, table);
          CAPTURE(items);
          CAPTURE(N);
          CAPTURE(steps);
          CAPTURE(table);
          CHECK((kw == 1 || kw == 2 || kw == 4));
          CHECK(kw <= std::max<int64_t>(1, steps));
          const int64_t rows = kbit::tcv_rows_per_cta(kw);
          if (table && kw > 1) CHECK(items * ((N + rows - 1) / rows) <= kH100Slots);
        }
}

TEST_CASE("tcv plan: what dispatch asks of the measured H100 plans") {
  // The queries kernels/api.cu's PDL rules ask of one plan (lib/kbit/tcv_sched.h).
  // Qwen3 k_proj (512 x 2048): a cluster of 64 CTAs, a latency plan.
  const kbit::TcvPlan k = kbit::tcv_plan_for(4, 512, 2048, 4, kH100Slots, kH100Sms);
  CHECK(kbit::tcv_latency(k));
  CHECK_FALSE(kbit::tcv_wide_cluster(k));
  // Qwen3 o_proj (2048 x 4096): 512 CTAs in clusters of 4, not a latency plan.
  const kbit::TcvPlan o = kbit::tcv_plan_for(4, 2048, 4096, 4, kH100Slots, kH100Sms);
  CHECK(kbit::tcv_wide_cluster(o));
  CHECK_FALSE(kbit::tcv_latency(o));
  CHECK(kbit::tcv_early_splits(o) == 0);
  // Qwen3 dense.down (2048 x 5120): an early grid of 5 slices, 2 steps per warp.
  const kbit::TcvPlan d = kbit::tcv_plan_for(4, 2048, 5120, 4, kH100Slots, kH100Sms);
  CHECK(kbit::tcv_early_splits(d) == 5);
  CHECK(kbit::tcv_warp_steps(d) == 2);
  CHECK_FALSE(kbit::tcv_unsplit_wave(d));
  // Llama-3-8B down (4096 x 14336): cut to an early grid of 3 slices, 10 steps per warp.
  const kbit::TcvPlan dn = kbit::tcv_plan_for(8, 4096, 14336, 4, kH100Slots, kH100Sms);
  CHECK(kbit::tcv_early_splits(dn) == 3);
  CHECK(kbit::tcv_warp_steps(dn) == 10);
  // Llama-3-70B q_proj (8192 x 8192): one slice per tile in one wave, 16 steps per warp, not early.
  const kbit::TcvPlan q = kbit::tcv_plan_for(4, 8192, 8192, 4, kH100Slots, kH100Sms);
  CHECK(kbit::tcv_unsplit_wave(q));
  CHECK(kbit::tcv_warp_steps(q) == 16);
  CHECK(kbit::tcv_early_splits(q) == 0);
  CHECK_FALSE(kbit::tcv_latency(q));
  // Llama-3-8B gate_up (28672 x 4096): unsplit but more than one wave.
  CHECK_FALSE(kbit::tcv_unsplit_wave(kbit::tcv_plan_for(4, 28672, 4096, 4, kH100Slots, kH100Sms)));
}
