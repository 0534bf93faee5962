#include "sampling.h"

#include <algorithm>

#include "kbit/rng.h"

namespace kbit::verify {
namespace {

void sort_unique(std::vector<int64_t>& v, int64_t limit) {
  std::erase_if(v, [&](int64_t x) { return x < 0 || x >= limit; });
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

bool full_reference(int64_t rows, int64_t N, int64_t K) {
  return double(rows) * double(N) * double(K) <= kFullReferenceMacs;
}

std::vector<int64_t> edge_rows(int64_t rows, const std::vector<int64_t>& expert_offsets) {
  std::vector<int64_t> r = {0, 1, rows - 2, rows - 1};
  for (size_t e = 0; e + 1 < expert_offsets.size(); ++e)
    if (expert_offsets[e + 1] > expert_offsets[e]) {
      r.push_back(expert_offsets[e]);
      r.push_back(expert_offsets[e + 1] - 1);
    }
  sort_unique(r, rows);
  return r;
}

std::vector<int64_t> edge_cols(int64_t N) {
  std::vector<int64_t> c = {0, 1, N - 2, N - 1};
  for (int64_t t = 8; t <= 256; t *= 2) {
    c.push_back(t - 1);
    c.push_back(t);
  }
  for (int64_t n = N - N % 128; n < N; ++n) c.push_back(n);
  sort_unique(c, N);
  return c;
}

std::vector<Element> select_elements(int64_t rows, int64_t N, const std::vector<int64_t>& expert_offsets,
                                     int64_t budget, uint64_t seed) {
  std::vector<Element> out;
  if (rows <= 0 || N <= 0) return out;
  Rng rng(seed);
  const std::vector<int64_t> er = edge_rows(rows, expert_offsets);
  const std::vector<int64_t> ec = edge_cols(N);
  // The first/last two rows get every edge column and budget/4 random ones; expert boundary rows
  // (up to 2 E of them) get the first and last column and four random ones.
  for (int64_t r : er) {
    const bool outer = r < 2 || r >= rows - 2;
    if (outer) {
      for (int64_t c : ec) out.push_back({r, c});
      for (int64_t i = 0; i < budget / 4; ++i) out.push_back({r, rng.below(N)});
    } else {
      out.push_back({r, 0});
      out.push_back({r, N - 1});
      for (int i = 0; i < 4; ++i) out.push_back({r, rng.below(N)});
    }
  }
  const int64_t rows_per_edge_col = std::max<int64_t>(8, budget / std::max<int64_t>(1, int64_t(ec.size())));
  for (int64_t c : ec)
    for (int64_t i = 0; i < rows_per_edge_col && i < rows; ++i) out.push_back({rng.below(rows), c});
  for (int64_t i = 0; i < budget; ++i) out.push_back({rng.below(rows), rng.below(N)});
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace kbit::verify
