// Warp-level data movement of the 16-bit tensor-core path (sm_80 .. sm_90), written down once as
// (lane, register, half) -> (row, col) maps, from the PTX ISA tables for
//   ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{,.trans}.shared.b16
//   mma.sync.aligned.m16n8k16.row.col.{f32,f16}.{f16,bf16}.{f16,bf16}.{f32,f16}
// Kernels, lib/kbit/smem_layout.h and the checker (kbit-fragcheck) call these functions; nothing
// restates the tables. A "half" is one 16-bit element of a 32-bit register: half 0 = bits 0..15.
// Checked on the CPU by tests/test_fragcheck.cpp and on the GPU against the real instructions by
// `kbit-fragcheck --gpu` (apps/kbit-fragcheck/probe.cu).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kbit/format.h"

namespace kbit::frag {

inline constexpr int kWarpSize = 32;

struct RowCol {
  int row = 0, col = 0;
  constexpr KBIT_HD bool operator==(const RowCol& o) const { return row == o.row && col == o.col; }
};

// ---------------------------------------------------------------------------------------------
// ldmatrix.m8n8.xNUM (NUM = 1, 2, 4 matrices of 8x8 16-bit elements; each matrix row is 16
// contiguous, 16-byte-aligned bytes at an address one lane supplies).
//  Addresses: lane l supplies row (l % 8) of matrix (l / 8). Only lanes < 8*NUM are read; the
//             others' addresses are ignored (kernels still pass valid ones).
//  Results:   register r of every lane holds two elements of matrix r. Without .trans lane t gets
//             row t/4, elements 2(t%4) and 2(t%4)+1 of that row (halves 0, 1); with .trans it gets
//             element t/4 of rows 2(t%4) and 2(t%4)+1, i.e. the matrix arrives transposed.
constexpr KBIT_HD bool ldmatrix_valid_num(int num) { return num == 1 || num == 2 || num == 4; }
constexpr KBIT_HD bool ldmatrix_lane_supplies(int lane, int num) { return lane < 8 * num; }
constexpr KBIT_HD int ldmatrix_addr_matrix(int lane) { return lane >> 3; }
constexpr KBIT_HD int ldmatrix_addr_row(int lane) { return lane & 7; }
constexpr KBIT_HD int ldmatrix_addr_lane(int matrix, int row) { return matrix * 8 + row; }
// (row, col) inside matrix `reg` that lane `lane` receives in half `half`: row = which supplied
// row address, col = which 16-bit element of those 16 bytes.
constexpr KBIT_HD RowCol ldmatrix_elem(int lane, int half, bool trans) {
  return trans ? RowCol{2 * (lane & 3) + half, lane >> 2} : RowCol{lane >> 2, 2 * (lane & 3) + half};
}
// Inverse of ldmatrix_elem: which lane / half receives element (row, col) of a matrix.
constexpr KBIT_HD int ldmatrix_dst_lane(int row, int col, bool trans) {
  return trans ? col * 4 + row / 2 : row * 4 + col / 2;
}
constexpr KBIT_HD int ldmatrix_dst_half(int row, int col, bool trans) { return trans ? (row & 1) : (col & 1); }

// ---------------------------------------------------------------------------------------------
// mma.sync.aligned.m16n8k16.row.col: D[16x8] = A[16x16] (row) * B[16x8] (col) + C[16x8].
// f16 and bf16 operands use the same maps (both are 16-bit); g = lane / 4, t = lane % 4.
enum class Elt { f16, bf16 };
enum class Acc { f32, f16 };  // accumulator C/D type

inline constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;
inline constexpr int kARegs = 4;      // A: 4 x .b32, 8 halves
inline constexpr int kBRegs = 2;      // B: 2 x .b32, 4 halves
constexpr KBIT_HD int c_regs(Acc acc) { return acc == Acc::f32 ? 4 : 2; }
constexpr KBIT_HD int c_halves_per_reg(Acc acc) { return acc == Acc::f32 ? 1 : 2; }

// A (m16 x k16): reg 0 = rows 0..7 / k 0..7, reg 1 = rows 8..15 / k 0..7,
//                reg 2 = rows 0..7 / k 8..15, reg 3 = rows 8..15 / k 8..15. Returns (m, k).
constexpr KBIT_HD RowCol mma_a(int lane, int reg, int half) {
  return {(lane >> 2) + 8 * (reg & 1), 2 * (lane & 3) + half + 8 * (reg >> 1)};
}
// B (k16 x n8): reg 0 = k 0..7, reg 1 = k 8..15; lane's column n = g. Returns (k, n).
constexpr KBIT_HD RowCol mma_b(int lane, int reg, int half) {
  return {2 * (lane & 3) + half + 8 * reg, lane >> 2};
}
// C/D (m16 x n8). f32: 4 regs, one value each: reg 0,1 = row g, cols 2t, 2t+1; reg 2,3 = row g+8.
// f16: 2 regs of two halves: reg 0 = row g, reg 1 = row g+8, cols 2t + half. Returns (m, n).
constexpr KBIT_HD RowCol mma_c(int lane, int reg, int half, Acc acc) {
  return acc == Acc::f32 ? RowCol{(lane >> 2) + 8 * (reg >> 1), 2 * (lane & 3) + (reg & 1)}
                         : RowCol{(lane >> 2) + 8 * reg, 2 * (lane & 3) + half};
}

static_assert(mma_a(0, 0, 0) == RowCol{0, 0} && mma_a(31, 3, 1) == RowCol{15, 15});
static_assert(mma_a(5, 2, 1) == RowCol{1, 11});
static_assert(mma_b(6, 1, 0) == RowCol{12, 1} && mma_b(31, 1, 1) == RowCol{15, 7});
static_assert(mma_c(9, 3, 0, Acc::f32) == RowCol{10, 3} && mma_c(9, 1, 1, Acc::f16) == RowCol{10, 3});
static_assert(ldmatrix_elem(13, 1, false) == RowCol{3, 3} && ldmatrix_elem(13, 1, true) == RowCol{3, 3});
static_assert(ldmatrix_elem(6, 0, true) == RowCol{4, 1});
static_assert(ldmatrix_dst_lane(4, 1, true) == 6 && ldmatrix_dst_half(5, 1, true) == 1);

// ---------------------------------------------------------------------------------------------
// Host-side simulation of one warp-wide ldmatrix (the checker's CPU model of the instruction):
// `smem` holds `smem_halves` 16-bit elements, `row_offset[l]` is the half offset lane l supplies.
// Fills out[l][r] for r < num. Returns an empty string, or why the access is invalid (a used
// address out of bounds or not 16-byte aligned).
std::string simulate_ldmatrix(const uint16_t* smem, size_t smem_halves, const int row_offset[kWarpSize],
                              int num, bool trans, uint32_t out[kWarpSize][4]);

const char* elt_name(Elt e);
const char* acc_name(Acc a);

}  // namespace kbit::frag
