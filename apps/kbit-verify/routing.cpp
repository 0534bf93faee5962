#include "routing.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "kbit/error.h"
#include "kbit/rng.h"

namespace kbit::verify {
namespace {

// Draw `picks` distinct experts from `eligible` with probability proportional to weight.
void pick_distinct(Rng& rng, std::vector<int64_t> eligible, std::vector<double> weight, int picks,
                   std::vector<int64_t>& counts) {
  double total = std::accumulate(weight.begin(), weight.end(), 0.0);
  for (int p = 0; p < picks && !eligible.empty(); ++p) {
    double x = rng.uniform() * total;
    size_t i = 0;
    for (; i + 1 < eligible.size(); ++i) {
      x -= weight[i];
      if (x < 0) break;
    }
    ++counts[size_t(eligible[i])];
    total -= weight[i];
    eligible[i] = eligible.back();
    weight[i] = weight.back();
    eligible.pop_back();
    weight.pop_back();
  }
}

}  // namespace

int64_t RoutingPlan::expert_of_row(int64_t r) const {
  // the last expert whose range starts at or before r and is non-empty
  const auto it = std::upper_bound(offsets.begin(), offsets.end(), r);
  return static_cast<int64_t>(it - offsets.begin()) - 1;
}

RoutingPlan plan_from_counts(const std::vector<int64_t>& counts) {
  RoutingPlan p;
  p.offsets.assign(counts.size() + 1, 0);
  for (size_t e = 0; e < counts.size(); ++e) {
    p.offsets[e + 1] = p.offsets[e] + counts[e];
    p.max_rows = std::max(p.max_rows, counts[e]);
    p.active_experts += counts[e] > 0;
  }
  p.total_rows = p.offsets.back();
  return p;
}

RoutingPlan make_routing(Routing routing, int64_t tokens, int top_k, int64_t E, uint64_t seed) {
  if (E < 1 || tokens < 0 || top_k < 1 || top_k > E)
    throw Error("make_routing: need E >= 1, tokens >= 0 and 1 <= top_k <= E (E = " + std::to_string(E) +
                ", tokens = " + std::to_string(tokens) + ", top_k = " + std::to_string(top_k) + ")");
  std::vector<int64_t> counts(size_t(E), 0);
  Rng rng(seed);
  switch (routing) {
    case Routing::realistic:
    case Routing::empty_edges: {
      std::vector<int64_t> eligible;
      for (int64_t e = 0; e < E; ++e)
        if (routing == Routing::realistic || (e % 2 == 1 && e != E - 1)) eligible.push_back(e);
      if (eligible.empty()) eligible.push_back(E / 2);  // E <= 2: keep one expert in the middle
      // popularity: a seeded permutation of ranks, weight 1 / (1 + rank)^0.8
      std::vector<int64_t> rank(eligible.size());
      std::iota(rank.begin(), rank.end(), 0);
      for (size_t i = rank.size(); i > 1; --i) std::swap(rank[i - 1], rank[size_t(rng.below(int64_t(i)))]);
      std::vector<double> weight(eligible.size());
      for (size_t i = 0; i < eligible.size(); ++i) weight[i] = 1.0 / std::pow(1.0 + double(rank[i]), 0.8);
      const int picks = std::min<int>(top_k, static_cast<int>(eligible.size()));
      for (int64_t t = 0; t < tokens; ++t) pick_distinct(rng, eligible, weight, picks, counts);
      break;
    }
    case Routing::uniform:
      for (int64_t t = 0; t < tokens; ++t)
        for (int i = 0; i < top_k; ++i) ++counts[size_t((t * top_k + i) % E)];
      break;
    case Routing::one_first: counts.front() = tokens * top_k; break;
    case Routing::one_last: counts.back() = tokens * top_k; break;
    case Routing::all_empty: break;
  }
  return plan_from_counts(counts);
}

}  // namespace kbit::verify
