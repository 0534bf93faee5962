// Which output elements the CPU reference computes for shapes too large to compute whole
// (rows * N * K > kFullReferenceMacs): every edge (first/last two rows, the rows at each expert's
// boundaries, the first/last two columns, the columns around power-of-two tile edges 8..256, the
// whole N tail past the last multiple of 128) crossed with each other and with random rows/columns,
// plus random elements up to the budget. Sorted by (row, col), no duplicates.
#pragma once

#include <cstdint>
#include <vector>

namespace kbit::verify {

inline constexpr double kFullReferenceMacs = 0x1p28;

struct Element {
  int64_t row, col;
  bool operator==(const Element&) const = default;
  auto operator<=>(const Element&) const = default;
};

// True when the CPU reference computes every element.
bool full_reference(int64_t rows, int64_t N, int64_t K);

// Edge rows: 0, 1, rows-2, rows-1 and, for MoE, every expert's first and last row (from
// expert_offsets; empty experts add nothing).
std::vector<int64_t> edge_rows(int64_t rows, const std::vector<int64_t>& expert_offsets);
// Edge columns: 0, 1, N-2, N-1, t-1 and t for t = 8, 16, ..., 256, and [N - N % 128, N) (the tail).
std::vector<int64_t> edge_cols(int64_t N);

// The sampled element set; budget = number of random elements added on top of the edges.
std::vector<Element> select_elements(int64_t rows, int64_t N, const std::vector<int64_t>& expert_offsets,
                                     int64_t budget, uint64_t seed);

}  // namespace kbit::verify
