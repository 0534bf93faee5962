// The k-slot map of the tcv kernels (kernels/tcv.cu): which weight element and which activation
// each register of an mma.sync m16n8k16 step holds. Written once, host + device, so the kernel and
// its CPU model (tests/test_tcv_map.cpp, which runs a whole warp step through the fragment maps of
// lib/kbit/fragment.h) use the same functions.
//
// Swap AB: the weights are the mma's A operand (rows = weight rows g and g + 8 of a 16-row group),
// the activations its B operand (column = token g of an n8 tile). One warp step covers 128 k =
// 4 quantization blocks; lane (g, q) decodes the whole block q of its two rows. An mma sums over
// its 16 k-slots in any order, so mma i (0..7) of a step gives lane q's k-slots 2q, 2q+1 (A regs
// 0/1, B reg 0) elements 4i, 4i+1 of block q and k-slots 2q+8, 2q+9 (A regs 2/3, B reg 1) elements
// 4i+2, 4i+3: every lane's activations are then words 2i, 2i+1 of its 32 contiguous activations.
#pragma once

#include "kbit/format.h"

namespace kbit::tcv {

inline constexpr int kStepBlocks = 4;                     // blocks per warp step
inline constexpr int kStepK = kStepBlocks * kBlockSize;   // 128 k per warp step
inline constexpr int kMmasPerStep = kBlockSize / 4;       // 8 mma per step and n8 tile

// The block (0..3 of the step) lane `lane` decodes: q = lane % 4.
constexpr KBIT_HD int lane_block(int lane) { return lane & 3; }

// Element (0..31 of the lane's block) in half `half` of A register `reg` of mma `i`. The register's
// row is reg & 1 (row g or g + 8); reg >> 1 picks k-slots 2q.. (0) or 2q+8.. (1).
constexpr KBIT_HD int a_elem(int i, int reg, int half) { return 4 * i + 2 * (reg >> 1) + half; }

// Word (0..15) of the lane's 32 activations of one token that B register `reg` of mma `i` holds
// (the same elements as a_elem(i, 2 reg, 0..1)).
constexpr KBIT_HD int b_word(int i, int reg) { return 2 * i + reg; }

// k (0..127 of the step) that k-slot `slot` (0..15) of mma `i` holds.
constexpr KBIT_HD int slot_k(int i, int slot) {
  return kBlockSize * ((slot & 7) >> 1) + a_elem(i, 2 * (slot >> 3), slot & 1);
}

// Where element e (0..31) of a block sits in block_offsets' output (lib/kbit/block_decode.h):
// in O (e % 8 >= 4) or E, word e % 4, byte e / 8.
constexpr KBIT_HD bool elem_in_odd(int e) { return (e & 7) >= 4; }
constexpr KBIT_HD int elem_word(int e) { return e & 3; }
constexpr KBIT_HD int elem_byte(int e) { return e >> 3; }

// The k = 2, 3 map (byte-table decode, block_table_pairs in lib/kbit/block_decode.h, whose pair
// W[r][c] holds elements 8c + r and 8c + 4 + r): mma i takes the eight elements 8c .. 8c + 7 of
// the lane's block, c = i / 2; with r0 = 2 (i % 2), A regs 0/1 are pair W[r0][c] of rows g / g + 8
// and A regs 2/3 pair W[r0 + 1][c].
constexpr KBIT_HD int bt_pair_r(int i, int reg) { return 2 * (i & 1) + (reg >> 1); }
constexpr KBIT_HD int bt_pair_c(int i) { return i >> 1; }
constexpr KBIT_HD int bt_a_elem(int i, int reg, int half) { return 8 * bt_pair_c(i) + bt_pair_r(i, reg) + 4 * half; }
// B register `reg` of mma i holds the activations of elements bt_a_elem(i, 2 reg, 0..1): a 16-bit
// half of activation words bt_b_word(i, reg, 0) and (i, reg, 1) each, joined by one PRMT.
constexpr KBIT_HD int bt_b_word(int i, int reg, int half) { return bt_a_elem(i, 2 * reg, half) / 2; }
constexpr KBIT_HD unsigned bt_b_sel(int i, int reg) { return (bt_a_elem(i, 2 * reg, 0) & 1) ? 0x7632u : 0x5410u; }
// k (0..127 of the step) that k-slot `slot` (0..15) of mma `i` holds under this map.
constexpr KBIT_HD int bt_slot_k(int i, int slot) {
  return kBlockSize * ((slot & 7) >> 1) + bt_a_elem(i, 2 * (slot >> 3), slot & 1);
}

// Accumulator register r (0..3, fp32) of lane `lane`: row g + 8 (r / 2) of the 16-row group and
// token 2q + r % 2 of the n8 tile.
constexpr KBIT_HD int c_row(int lane, int r) { return (lane >> 2) + 8 * (r >> 1); }
constexpr KBIT_HD int c_token(int lane, int r) { return 2 * (lane & 3) + (r & 1); }

// ---------------------------------------------------------------------------------------------
// tcw (kernels/tcw.cu): the same weight fragments feed wgmma m64nNk16 (A from registers; warp w of
// a warpgroup holds rows 16 w .. 16 w + 15 in the mma.m16n8k16 A layout), and the activations are
// wgmma's B operand in shared memory. A pre-pass writes each step's activation tile (MN tokens x
// 128 k) in exactly the order the descriptor reads it, k permuted by the decode's slot map, so
// the kernel copies it with plain 16-byte cp.async. The tile is K-major without swizzle: core
// matrices of 8 tokens x 8 k-slots (16 bytes per token, 128 bytes each); sub-step i (k-slots of mma
// i) is core-matrix columns 2 i and 2 i + 1; columns are kTcwLbo apart, 8-token groups kTcwSbo.
inline constexpr int kTcwLbo = 128;                 // bytes between core matrices adjacent in k
inline constexpr int kTcwSbo = 2 * kMmasPerStep * 128;  // bytes between 8-token groups (2048)
// Byte offset, in one step's tile, of token n (0..MN-1) at k-slot `slot` (0..15) of sub-step i.
constexpr KBIT_HD int tcw_b_byte(int n, int i, int slot) {
  return (n >> 3) * kTcwSbo + (2 * i + (slot >> 3)) * kTcwLbo + (n & 7) * 16 + (slot & 7) * 2;
}
// The inverse: the (sub-step i, slot) whose bytes start at `byte` (even, < MN * 256), as
// 16 * i + slot, and the token.
constexpr KBIT_HD int tcw_byte_token(int byte) { return (byte / kTcwSbo) * 8 + (byte % kTcwLbo) / 16; }
constexpr KBIT_HD int tcw_byte_islot(int byte) {
  return 16 * ((byte % kTcwSbo) / kTcwLbo / 2) + 8 * ((byte % kTcwSbo) / kTcwLbo % 2) + (byte % 16) / 2;
}
// wgmma shared-memory matrix descriptor (PTX ISA, "matrix descriptor"): start address, leading-
// and stride-dimension byte offsets (all >> 4), no swizzle (bits 62-63 = 0), base offset 0.
constexpr KBIT_HD uint64_t tcw_desc(uint32_t smem_byte_addr) {
  return static_cast<uint64_t>((smem_byte_addr & 0x3FFFFu) >> 4) |
         (static_cast<uint64_t>(kTcwLbo >> 4) << 16) | (static_cast<uint64_t>(kTcwSbo >> 4) << 32);
}
static_assert(tcw_byte_islot(tcw_b_byte(13, 5, 11)) == 16 * 5 + 11 && tcw_byte_token(tcw_b_byte(13, 5, 11)) == 13);

static_assert(slot_k(0, 0) == 0 && slot_k(0, 1) == 1 && slot_k(0, 8) == 2 && slot_k(0, 9) == 3);
static_assert(slot_k(7, 15) == 3 * kBlockSize + 31 && slot_k(2, 2) == kBlockSize + 8);
static_assert(bt_slot_k(0, 0) == 0 && bt_slot_k(0, 1) == 4 && bt_slot_k(0, 8) == 1 && bt_slot_k(1, 9) == 7);
static_assert(bt_b_word(3, 1, 1) == 7 && bt_b_sel(3, 1) == 0x7632u && bt_b_sel(2, 0) == 0x5410u);

}  // namespace kbit::tcv
