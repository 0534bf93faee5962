// Seeded MoE routings: which expert each routed row belongs to, as the expert_offsets array the
// grouped kernels and moe_gemm_ref take (E + 1 entries, 0 = o_0 <= ... <= o_E = total rows).
//   realistic    T tokens each pick top_k distinct experts, expert popularity Zipf-like
//                (weight 1/(1 + rank)^0.8 over a seeded permutation), so small T leaves most
//                experts empty and large T loads them unevenly, as real routers do.
//   uniform      token t takes experts (t * top_k + i) % E: every expert gets the same +-1 rows.
//   empty_edges  as realistic but only odd experts below E - 1 may be picked: expert 0, the
//                last expert and every even expert stay empty (top_k capped at the eligible count).
//   one_first    all T * top_k rows go to expert 0, every other expert is empty.
//   one_last     all T * top_k rows go to expert E - 1.
//   all_empty    no rows at all (total 0), whatever T is.
#pragma once

#include <cstdint>
#include <vector>

#include "catalogue.h"

namespace kbit::verify {

struct RoutingPlan {
  std::vector<int64_t> offsets;  // E + 1 entries
  int64_t total_rows = 0;
  int64_t max_rows = 0;          // most rows of one expert
  int64_t active_experts = 0;    // experts with at least one row

  int64_t rows_of(int64_t e) const { return offsets[size_t(e) + 1] - offsets[size_t(e)]; }
  // The expert owning routed row r (offsets must be valid and r < total_rows).
  int64_t expert_of_row(int64_t r) const;
};

RoutingPlan make_routing(Routing routing, int64_t tokens, int top_k, int64_t E, uint64_t seed);

// Plan from per-expert row counts (offsets = exclusive prefix sum).
RoutingPlan plan_from_counts(const std::vector<int64_t>& counts);

}  // namespace kbit::verify
