// The tcw kernel's work partition (lib/kbit/tcw_sched.h): every (tile, step) unit belongs to
// exactly one CTA, sched_cta inverts sched_begin, and in stream-K the fixup sums every shared tile
// exactly once, from the right partial slots of the right CTAs -- walked here the way
// kernels/tcw.cu walks them (segments per CTA, slots per segment, owner per boundary).
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "kbit/tcw_sched.h"

namespace {

struct Seg {
  int64_t cta, tile, sb, se;
};

// The kernel's segment walk.
std::vector<Seg> segments(const kbit::TcwSched& s, int64_t steps) {
  std::vector<Seg> out;
  for (int64_t c = 0; c < s.ctas; ++c) {
    int64_t u = kbit::sched_begin(s, c);
    const int64_t u_end = kbit::sched_begin(s, c + 1);
    while (u < u_end) {
      const int64_t tile = u / steps, sb = u % steps;
      const int64_t se = u_end - u < steps - sb ? sb + (u_end - u) : steps;
      u += se - sb;
      out.push_back({c, tile, sb, se});
    }
  }
  return out;
}

// Number of problems found in the partition of `tiles` x `steps` units over `ctas` CTAs; `fault`
// makes the fixup expect the opposite slots (the check must then fail).
int partition_problems(int64_t tiles, int64_t steps, int64_t ctas, bool fault = false) {
  kbit::TcwSched s;
  s.units = tiles * steps;
  s.ctas = ctas;
  int bad = 0;
  for (int64_t c = 0; c < ctas; ++c)
    for (int64_t u = kbit::sched_begin(s, c); u < kbit::sched_begin(s, c + 1); ++u) bad += kbit::sched_cta(s, u) != c;
  bad += kbit::sched_begin(s, ctas) != s.units;
  // Every unit covered once; per tile, the CTAs in order with the slot each segment writes.
  std::vector<int> covered(size_t(s.units), 0);
  std::map<int64_t, std::vector<Seg>> per_tile;
  std::map<std::pair<int64_t, int>, int> slot_uses;
  for (const Seg& g : segments(s, steps)) {
    for (int64_t k = g.sb; k < g.se; ++k) ++covered[size_t(g.tile * steps + k)];
    per_tile[g.tile].push_back(g);
    if (!(g.sb == 0 && g.se == steps)) ++slot_uses[{g.cta, kbit::sched_slot(g.sb)}];
  }
  for (int v : covered) bad += v != 1;
  for (const auto& [key, n] : slot_uses) bad += n != 1;  // no CTA writes one slot twice
  // The fixup: owners per tile, and the slots it reads (c0: slot 1, later CTAs: slot 0).
  std::map<int64_t, int> owners;
  for (int64_t b = 1; b < ctas; ++b)
    if (const int64_t t = kbit::sched_fixup_tile(s, steps, b); t >= 0) {
      ++owners[t];
      const int64_t c0 = b - 1, c1 = kbit::sched_cta(s, t * steps + steps - 1);
      const auto& segs = per_tile[t];
      bad += int64_t(segs.size()) != c1 - c0 + 1;
      for (const Seg& g : segs)
        bad += kbit::sched_slot(g.sb) != ((g.cta == c0) != fault ? 1 : 0) || g.cta < c0 || g.cta > c1;
    }
  for (const auto& [t, segs] : per_tile) {
    const bool shared = segs.size() > 1;
    bad += (owners.count(t) ? owners[t] : 0) != (shared ? 1 : 0);
  }
  return bad;
}

}  // namespace

TEST_CASE("tcw schedule: units, CTAs, shared tiles and the fixup's owners agree with the kernel's walk") {
  // Shapes of the bench: 448 tiles x 64 steps on 132 SMs (stream-K), 80 x 16 on 264 slots, fewer
  // tiles than CTAs (several CTAs per tile), per-tile slices (ctas = tiles * splits), one CTA.
  const int64_t cases[][3] = {{448, 64, 132}, {80, 16, 132}, {224, 32, 264}, {8, 32, 128}, {4, 4, 8},
                              {64, 64, 256}, {3, 10, 9}, {7, 5, 13}, {1, 2, 1}, {896, 64, 132}, {33, 7, 31}};
  for (const auto& c : cases)
    CHECK_MESSAGE(partition_problems(c[0], c[1], c[2]) == 0, "tiles ", c[0], " steps ", c[1], " ctas ", c[2]);
  for (int64_t tiles = 1; tiles <= 12; ++tiles)
    for (int64_t steps = 2; steps <= 9; ++steps)
      for (int64_t ctas = 1; ctas <= tiles * steps / 2 + 1 && ctas <= 40; ++ctas)
        CHECK_MESSAGE(partition_problems(tiles, steps, ctas) == 0, "tiles ", tiles, " steps ", steps, " ctas ", ctas);
}

TEST_CASE("tcw schedule: the checks can fail") {
  CHECK(partition_problems(448, 64, 132, true) > 0);
  CHECK(partition_problems(3, 10, 9, true) > 0);
  kbit::TcwSched s;
  s.units = 100;
  s.ctas = 7;
  CHECK(kbit::sched_cta(s, kbit::sched_begin(s, 3)) == 3);
  CHECK(kbit::sched_cta(s, kbit::sched_begin(s, 3) - 1) == 2);
  // 10 units in 3 CTAs of 2 tiles x 5 steps: CTA 1 (units 3..5) crosses the tile boundary at 5; the
  // boundary at unit 3 owns tile 0, the one at unit 6 owns tile 1.
  s.units = 10;
  s.ctas = 3;
  CHECK(kbit::sched_fixup_tile(s, 5, 1) == 0);
  CHECK(kbit::sched_fixup_tile(s, 5, 2) == 1);
  s.ctas = 2;  // boundary at unit 5 = a tile start: nothing shared
  CHECK(kbit::sched_fixup_tile(s, 5, 1) == -1);
}

TEST_CASE("grouped_tcw item width: the least power-of-two part of the tile, >= 32 tokens, holding the rows") {
  for (int tile : {32, 64, 128, 256})
    for (int rows = 1; rows <= tile; ++rows) {
      const int j = kbit::grouped_item_width_shift(tile, rows), width = tile >> j;
      CHECK_MESSAGE(width >= rows, "tile ", tile, " rows ", rows);
      CHECK_MESSAGE(width >= 32, "tile ", tile, " rows ", rows);
      // the least such: half the width is too narrow or below wgmma's 32 used here
      CHECK_MESSAGE((width / 2 < rows || width / 2 < 32), "tile ", tile, " rows ", rows);
    }
  CHECK(kbit::grouped_item_width_shift(256, 1) == 3);
  CHECK(kbit::grouped_item_width_shift(256, 33) == 2);
  CHECK(kbit::grouped_item_width_shift(256, 129) == 0);
  CHECK(kbit::grouped_item_width_shift(128, 64) == 1);
  CHECK(kbit::grouped_item_width_shift(32, 1) == 0);
}

TEST_CASE("pad_smem_bytes: one CTA more than asked no longer fits an SM, 128 bytes less padding still would") {
  // The H100's figures (228 KB per SM, 1 KB reserved per CTA) and tcw_kernel's 1280 static bytes: the
  // 114,560 bytes the GPU doctest reported for k = 2, 3 at 64-token tiles
  // (bench/results/2026-11-27-h100-tcwpdl64k2).
  CHECK(kbit::pad_smem_bytes(233472, 1280, 1024, 1) == 114560);
  for (int per_sm : {101376, 167936, 233472})  // 99 KB, 164 KB, 228 KB SMs
    for (int static_bytes : {0, 1280, 4096})
      for (int reserved : {0, 1024})
        for (int ctas = 1; ctas <= 3; ++ctas) {
          const int pad = kbit::pad_smem_bytes(per_sm, static_bytes, reserved, ctas);
          const int per_cta = pad + static_bytes + reserved;
          INFO("per_sm ", per_sm, " static ", static_bytes, " reserved ", reserved, " ctas ", ctas, ": pad ", pad);
          CHECK(pad % 128 == 0);
          CHECK((ctas + 1) * per_cta > per_sm);  // no room for one more
          CHECK(ctas * per_cta <= per_sm);       // the CTAs asked for still fit
          CHECK((ctas + 1) * (per_cta - 128) <= per_sm);  // the least such multiple of 128 bytes
        }
}

TEST_CASE("tcw_partition and tcw_slots: the plan's partition and the CTAs per SM it counts") {
  // H100 (132 SMs), 64-token tiles, k = 2 (its kernels hold 2 CTAs per SM; -occfix's measured rows).
  // Llama-3-70B gate_up at M = 64: 448 tiles of 64 steps -> stream-K on both CTAs of every SM.
  kbit::TcwSlots s = kbit::tcw_slots(64, 57344, 64, 448, 132, 2, kbit::kTcwSharedSmMinSteps);
  CHECK(s.ctas_per_sm == 2);
  CHECK(s.part.splits == 0);
  CHECK(s.part.ctas == 264);
  CHECK(s.part.cta_steps == (448 * 64 + 263) / 264);
  // counting one CTA per SM the same shape took 132 ranges twice as long
  const kbit::TcwPartition one = kbit::tcw_partition(64, 57344, 64, 448, 132);
  CHECK(one.splits == 0);
  CHECK(one.ctas == 132);
  CHECK(one.cta_steps == (448 * 64 + 131) / 132);
  // GLM kv_b_proj (K = 512: 4 steps, 70 tiles): two CTAs per SM would leave each 2 steps -> one counted
  s = kbit::tcw_slots(64, 8960, 4, 70, 132, 2, kbit::kTcwSharedSmMinSteps);
  CHECK(s.ctas_per_sm == 1);
  CHECK(s.part.splits == 1);
  CHECK(s.part.ctas == 70);
  CHECK(s.part.cta_steps == 4);
  // ... but the 32-token tiles (min_steps 0) keep both
  s = kbit::tcw_slots(32, 8960, 4, 70, 132, 2, 0);
  CHECK(s.ctas_per_sm == 2);
  CHECK(s.part.ctas == 140);
  CHECK(s.part.cta_steps == 2);
  // Qwen3 dense.gate_up (80 tiles of 16 steps): 3 slices of 6 steps on 264 slots, kept
  s = kbit::tcw_slots(64, 10240, 16, 80, 132, 2, kbit::kTcwSharedSmMinSteps);
  CHECK(s.ctas_per_sm == 2);
  CHECK(s.part.splits == 3);
  CHECK(s.part.ctas == 240);
  CHECK(s.part.cta_steps == 6);
  // A kernel that holds one CTA per SM is planned on the SMs alone.
  for (int64_t tiles : {1, 7, 70, 133, 448})
    for (int64_t steps : {1, 4, 16, 64, 224}) {
      const kbit::TcwSlots a = kbit::tcw_slots(64, 4096, steps, tiles, 132, 1, kbit::kTcwSharedSmMinSteps);
      const kbit::TcwPartition b = kbit::tcw_partition(64, 4096, steps, tiles, 132);
      CHECK(a.ctas_per_sm == 1);
      CHECK(a.part.ctas == b.ctas);
      CHECK(a.part.splits == b.splits);
    }
}

TEST_CASE("tcw_partition: every unit covered, one wave for stream-K, the partials within 32 MB") {
  for (int64_t M : {1, 33, 64, 256, 1024})
    for (int64_t N : {512, 2048, 8960, 57344})
      for (int64_t steps : {1, 2, 4, 16, 64, 224})
        for (int64_t slots : {132, 264})
          for (int force : {0, 1, 2, 3, 4}) {
            const int64_t tiles = (N + 127) / 128 * ((M + 63) / 64);
            const kbit::TcwPartition p = kbit::tcw_partition(M, N, steps, tiles, slots, force);
            INFO("M ", M, " N ", N, " steps ", steps, " slots ", slots, " force ", force);
            CHECK(p.ctas >= 1);
            CHECK(p.cta_steps >= 1);
            if (p.splits == 0) {  // stream-K: one wave, ranges of >= 2 steps (but for 1 unit)
              CHECK(p.ctas <= slots);
              CHECK(p.ctas * p.cta_steps >= tiles * steps);
              if (tiles * steps >= 2) CHECK(p.cta_steps >= 2);
              if (force == 0) CHECK(p.cta_steps >= 2);
            } else {
              CHECK(p.ctas == tiles * p.splits);
              CHECK(p.splits * p.cta_steps >= steps);
              CHECK((p.cta_steps - 1) * p.splits < steps);  // no empty slice
              if (p.splits > 1) CHECK(static_cast<double>(p.splits) * M * N * 4 <= 32.0e6);
            }
            if (force == 1) CHECK(p.splits > 0);
            if (force >= 2) CHECK(p.splits == 0);
            if (force == 3) CHECK(p.ctas <= 4);
            if (force == 4) {  // whole runs: every range starts at a tile's start
              kbit::TcwSched q;
              q.units = tiles * steps;
              q.ctas = p.ctas;
              CHECK(p.ctas <= 4);
              CHECK(tiles % p.ctas == 0);
              for (int64_t c = 0; c <= q.ctas; ++c) CHECK(kbit::sched_begin(q, c) % steps == 0);
            }
          }
}

TEST_CASE("tcw_partition(whole): one wave of equal runs of whole tiles in place of per-tile waves") {
  // Llama-3-70B gate_up at M = 1024 in 256-token tiles: 448 x 4 tiles of 64 steps on 132 SMs. Per tile
  // that is 14 waves (the last short); whole runs: 128 CTAs of 14 tiles each.
  const kbit::TcwPartition pt = kbit::tcw_partition(1024, 57344, 64, 1792, 132);
  CHECK(pt.splits == 1);
  CHECK(pt.ctas == 1792);
  const kbit::TcwPartition w = kbit::tcw_partition(1024, 57344, 64, 1792, 132, 0, true);
  CHECK(w.splits == 0);
  CHECK(w.ctas == 128);
  CHECK(w.cta_steps == 14 * 64);
  // every CTA's range starts at a tile's start, so no tile is shared and no fixup runs
  kbit::TcwSched s;
  s.units = 1792 * 64;
  s.ctas = w.ctas;
  s.row_tiles = 448;
  s.splits = 0;
  for (int64_t c = 0; c <= s.ctas; ++c) CHECK(kbit::sched_begin(s, c) % 64 == 0);
  for (int64_t b = 1; b < s.ctas; ++b) CHECK(kbit::sched_fixup_tile(s, 64, b) == -1);
  // 1793 tiles: runs of 14 on 129 CTAs would not divide them -> per tile, as without whole
  const kbit::TcwPartition odd = kbit::tcw_partition(1024, 57344, 64, 1793, 132, 0, true);
  CHECK(odd.splits == 1);
  CHECK(odd.ctas == 1793);
  // one wave of tiles (128 <= 132): per tile, unchanged
  const kbit::TcwPartition one = kbit::tcw_partition(1024, 4096, 32, 128, 132, 0, true);
  CHECK(one.splits == 1);
  CHECK(one.ctas == 128);
  // where balanced stream-K wins by the rule it is kept (Llama-3-70B gate_up M = 256: 448 tiles)
  const kbit::TcwPartition sk = kbit::tcw_partition(256, 57344, 64, 448, 132, 0, true);
  CHECK(sk.splits == 0);
  CHECK(sk.ctas == 132);
  // forced plans ignore it
  CHECK(kbit::tcw_partition(1024, 57344, 64, 1792, 132, 1, true).splits == 1);
  // tcw_slots passes it through, on the slots it counts (2 CTAs per SM: 256 runs of 7 tiles)
  const kbit::TcwSlots ws = kbit::tcw_slots(1024, 57344, 64, 1792, 132, 2, kbit::kTcwSharedSmMinSteps, 0, true);
  CHECK(ws.ctas_per_sm == 2);
  CHECK(ws.part.splits == 0);
  CHECK(ws.part.ctas == 256);
  CHECK(ws.part.cta_steps == 7 * 64);
  const kbit::TcwSlots ws1 = kbit::tcw_slots(1024, 57344, 64, 1792, 132, 1, kbit::kTcwSharedSmMinSteps, 0, true);
  CHECK(ws1.part.splits == 0);
  CHECK(ws1.part.ctas == 128);
  CHECK(kbit::tcw_slots(1024, 57344, 64, 1792, 132, 1, kbit::kTcwSharedSmMinSteps, 0, false).part.splits == 1);
  // and the schedule it gives covers every unit once, whole tiles only, for any tile count
  for (int64_t tiles : {133, 256, 264, 640, 896, 1000, 1792, 14336})
    for (int64_t steps : {4, 16, 64, 224}) {
      const kbit::TcwPartition p = kbit::tcw_partition(1024, 8192, steps, tiles, 132, 0, true);
      const kbit::TcwPartition base = kbit::tcw_partition(1024, 8192, steps, tiles, 132);
      INFO("tiles ", tiles, " steps ", steps);
      if (base.splits == 0) {  // balanced stream-K by the rule: whole changes nothing
        CHECK(p.splits == 0);
        CHECK(p.ctas == base.ctas);
        continue;
      }
      if (p.splits != 0) {  // per tile, as without whole
        CHECK(p.ctas == base.ctas);
        continue;
      }
      CHECK(base.splits == 1);
      CHECK(p.cta_steps == (tiles + 131) / 132 * steps);  // the per-tile makespan: its waves x a tile's steps
      kbit::TcwSched q;
      q.units = tiles * steps;
      q.ctas = p.ctas;
      CHECK(p.ctas <= 132);
      CHECK(kbit::sched_begin(q, p.ctas) == q.units);
      for (int64_t c = 0; c < q.ctas; ++c) {
        CHECK(kbit::sched_begin(q, c) % steps == 0);
        CHECK(kbit::sched_begin(q, c + 1) - kbit::sched_begin(q, c) <= p.cta_steps);
      }
    }
}

TEST_CASE("tcw token tile: the default by M, and smaller tiles (160, 192, 224 tokens with `mid`) only where the cost model puts them 8% ahead") {
  CHECK(kbit::tcw_default_tile(1) == 32);
  CHECK(kbit::tcw_default_tile(33) == 64);
  CHECK(kbit::tcw_default_tile(65) == 128);
  CHECK(kbit::tcw_default_tile(128) == 128);
  CHECK(kbit::tcw_default_tile(129) == 256);
  // slots as tcw_plan gives them on 132 SMs: one CTA per SM, two for the 64-token kernels of k = 2, 3 and of
  // k = 4 on the pair table (and the 32-token ones); whole runs where tcw_whole_runs allows them
  int bits = 4;
  int64_t M = 0, N = 0, steps = 0;
  auto slots_at = [&](int mn) {
    const int64_t tiles = (N + 127) / 128 * ((M + mn - 1) / mn);
    const int res = mn == 32 || (mn == 64 && bits <= 4) ? 2 : 1;
    return kbit::tcw_slots(M, N, steps, tiles, 132, res, mn >= 64 ? kbit::kTcwSharedSmMinSteps : 0, 0,
                           mn >= 128 && bits >= 4 && steps >= 16);
  };
  // the choice for m x n x k at k-bit weights with the tiles between 128 and 256 that `mid` has (bit 0 160 tokens,
  // bit 1 192, bit 2 224)
  auto pick_w = [&](int64_t m, int64_t n, int64_t k, int b, unsigned mid) {
    M = m, N = n, steps = (k + 127) / 128, bits = b;
    return kbit::tcw_choose_tile(M, N, bits, 132, slots_at, mid);
  };
  auto pick = [&](int64_t m, int64_t n, int64_t k, int b) { return pick_w(m, n, k, b, 0u); };
  // Rows of bench/results/2026-11-27-h100-mncap (k = 4 unless stated; us at 256 / 128 / 64 tokens):
  CHECK(pick(256, 5120, 768, 4) == 128);    // GLM q_b_proj: 19.4 / 12.4 / 17.7 (K split 2 ways at 256)
  CHECK(pick(1024, 2048, 512, 4) == 128);   // Qwen3 shared_expert.down: 23.0 / 10.8 / 13.7
  CHECK(pick(384, 10240, 2048, 2) == 128);  // Qwen3 dense.gate_up, k = 2: 57.9 / 39.8 / 51.1 (half a token tile empty)
  CHECK(pick(128, 576, 2048, 4) == 64);     // GLM kv_a_proj: - / 9.6 / 8.5
  CHECK(pick(1024, 57344, 8192, 4) == 256); // Llama-3-70B gate_up: 1507 / 2028 / 3244
  CHECK(pick(256, 8960, 512, 4) == 256);    // GLM kv_b_proj: 13.8 / 16.8 / 19.1
  CHECK(pick(384, 8192, 28672, 4) == 256);  // Llama-3-70B down: 336 / 369 (stream-K, within 8% by the model) / 612
  // k = 4's 64-token kernel at two CTAs per SM (bench/results/2026-11-27-h100-minb64; us at the default / 64):
  CHECK(pick(192, 10240, 2048, 4) == 64);   // Qwen3 dense.gate_up: 29.0 / 27.2
  CHECK(pick(96, 8192, 28672, 4) == 128);   // Llama-3-70B down: 123.0 / 156.9
  CHECK(pick(192, 57344, 8192, 4) == 256);  // Llama-3-70B gate_up: 346.8 / 464.7
  // k = 3's 64-token kernel at two CTAs per SM (bench/results/2026-11-27-h100-occ2land; us at 256 / 64 tokens):
  CHECK(pick(192, 20480, 2048, 3) == 64);   // GLM shared_experts.gate_up: 57.3 / 53.1
  CHECK(pick(192, 10240, 2048, 3) == 64);   // Qwen3 dense.gate_up: 28.7 / 28.5
  // k = 2's 64-token step where the plan counts one CTA per SM (the short plans of small shapes: kTcwLone64K2,
  // tcw_lone64_short); rows of bench/results/2026-11-28-h200-s46b (tcw_pdl, us at 128 / 64 tokens), which the fitted
  // price kept at 128:
  auto pick_fitted = [&](int64_t m, int64_t n, int64_t k, int b) {
    M = m, N = n, steps = (k + 127) / 128, bits = b;
    return kbit::tcw_choose_tile(M, N, bits, 132, slots_at, 0u, kbit::kTcwLone64K2Fitted);
  };
  CHECK(pick(128, 512, 2048, 2) == 64);   // Qwen3 k_proj: 7.15 / 5.93
  CHECK(pick(128, 2048, 512, 2) == 64);   // Qwen3 shared_expert.down: 6.78 / 5.82
  CHECK(pick(128, 5120, 768, 2) == 64);   // GLM q_b_proj: 9.92 / 7.99
  CHECK(pick(256, 576, 2048, 2) == 64);   // GLM kv_a_proj: 8.19 / 7.68
  CHECK(pick_fitted(128, 512, 2048, 2) == 128);
  CHECK(pick_fitted(128, 5120, 768, 2) == 128);
  CHECK(pick(128, 512, 2048, 3) == 64);   // k = 3 shares k = 2's prices
  // not on longer plans (tcw_lone64_short: more than 4 steps a CTA, 6 up to M = 256), where 64 tokens lost in -s46l
  CHECK(pick(384, 1024, 2048, 2) == pick_fitted(384, 1024, 2048, 2));  // 8 steps: 0.87x there
  CHECK(pick(512, 576, 2048, 3) == pick_fitted(512, 576, 2048, 3));    // 6 steps above M = 256: 0.92x
  CHECK(pick(512, 512, 2048, 2) == 64);                                // 4 steps: 1.13x
  CHECK(kbit::tcw_lone64_short(1024, 4));
  CHECK(kbit::tcw_lone64_short(256, 6));
  CHECK_FALSE(kbit::tcw_lone64_short(257, 6));
  CHECK_FALSE(kbit::tcw_lone64_short(65, 7));
  // not where two CTAs share an SM (the lone price does not apply), nor at k = 4
  CHECK(pick(128, 10240, 768, 2) == 128);  // 64 tokens on two CTAs per SM, 6 steps each: priced shared
  CHECK(pick(384, 10240, 2048, 2) == pick_fitted(384, 10240, 2048, 2));
  CHECK(pick(128, 5120, 768, 4) == pick_fitted(128, 5120, 768, 4));
  // The 192-token candidate (`mid`, KBIT_TCW_TILE192): taken where it needs no more token tiles than 256 tokens;
  // rows of bench/results/2026-11-28-h100-tile192 (k = 4, tcw_pdl, us at 256 / 192 tokens):
  auto pick_mid = [&](int64_t m, int64_t n, int64_t k, int b) { return pick_w(m, n, k, b, 2u); };  // 192 tokens
  CHECK(pick_mid(288, 2048, 5120, 4) == 192);   // GLM o_proj: 23.85 / 21.45
  CHECK(pick_mid(576, 4096, 4096, 4) == 192);   // Llama-3-8B q_proj: 56.38 / 48.73
  CHECK(pick_mid(160, 2048, 5120, 4) == 192);   // GLM o_proj: 15.76 / 14.71
  CHECK(pick_mid(256, 2048, 5120, 4) != 192);   // two 192-token tiles against one of 256 (it takes 128)
  CHECK(pick_mid(1024, 57344, 8192, 4) == 256); // Llama-3-70B gate_up, as without the candidate
  CHECK(pick_mid(128, 2048, 5120, 4) == 128);   // not below M = 129 (the default is 128 there)
  CHECK(pick(288, 2048, 5120, 4) != 192);       // without `mid`, never
  CHECK(pick_mid(512, 5120, 768, 4) != 192);     // GLM q_b_proj: three 192-token tiles against two (not measured)
  // 160 and 224 tokens (`mid` bits 0 and 2, KBIT_TCW_TILE160 / 224): the least tile of as many token tiles, by the
  // linear step cost; rows of bench/results/2026-11-28-h100-tilewidths (tcw_pdl, us at the tile without / with them)
  CHECK(pick_w(288, 2048, 5120, 4, 3u) == 160);  // GLM o_proj: two tiles of 160 against two of 192
  CHECK(pick_w(416, 8192, 8192, 4, 6u) == 224);  // Llama-3-70B q_proj: two of 224 against two of 256 (not measured)
  CHECK(pick_w(416, 8192, 8192, 4, 2u) != 192);  // three of 192: not a candidate
  CHECK(pick_w(416, 2048, 5120, 4, 6u) == 256);  // GLM o_proj: the 13.6 MB of partials keep it within 8%
  CHECK(pick_w(160, 2048, 5120, 4, 7u) == 160);
  // no tile between 128 and 256 above M = 576 (kTcwMidMaxM): 224 would need three token tiles at M = 600..672 as
  // 256 does, and its step price is within the 8% margin, but no run measured those plans
  CHECK(pick_w(640, 57344, 8192, 4, 7u) != 224);  // Llama-3-70B gate_up
  CHECK(pick_w(640, 2048, 5120, 4, 7u) != 224);
  // never below 64 tokens or a quarter of the default; the default at M <= 64; and a smaller tile only
  // where its modelled cost is <= 92% of the default's (192 only with `mid`, where the default is 256)
  for (int b : {2, 3, 4, 5})
    for (int64_t m : {1, 32, 33, 64, 65, 96, 128, 129, 160, 200, 256, 288, 384, 448, 512, 576, 768, 1000, 1024, 4096})
      for (int64_t n : {64, 512, 2048, 5120, 8960, 57344})
        for (int64_t k : {512, 2048, 8192}) {
          const int d = kbit::tcw_default_tile(m);
          for (unsigned mid : {0u, 2u, 7u}) {
            const int mn = pick_w(m, n, k, b, mid);
            INFO("M ", m, " N ", n, " K ", k, " bits ", b, " mid ", mid, " tile ", mn);
            CHECK((mn == d || (d >= 128 && mn >= 64 && mn >= d / 4 && mn < d)));
            for (int j = 0; j < 3; ++j) {  // a tile between 128 and 256 only where `mid` has it, as few token tiles
              const int t = kbit::kTcwMidTiles[j];  // (and M <= kTcwMidMaxM)
              CHECK((mn != t ||
                     ((mid >> j & 1u) && d == 256 && m <= kbit::kTcwMidMaxM && (m + t - 1) / t == (m + 255) / 256)));
            }
            if (mn != d) {
              auto cost = [&](int t) { return kbit::tcw_tile_cost(m, n, t, b, 132, slots_at(t)); };
              CHECK(cost(mn) <= 0.92 * cost(d));
            }
          }
        }
}
