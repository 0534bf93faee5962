// kbit-fragcheck's CPU checks: the fragment model (fragment.h) against a second, independent
// transcription of the PTX tables, and every shared-memory layout instantiation of smem_layout.h
// for bijection, bounds, bank conflicts per access phase (declared == measured) and for the
// fragments a warp receives through it (ldmatrix model -> what mma expects; bit planes -> index
// bits of each B element). The checkers take the layout / map under test as functions, so the
// tests can hand them deliberately broken ones and see them fail.
#pragma once

#include <cstdint>
#include <functional>
#include <cstdio>
#include <string>
#include <vector>

#include "kbit/fragment.h"

namespace kbit::fragcheck {

// One check's outcome; a report is a list of them.
struct Check {
  std::string group;      // "model", "a_tile", "b_tile", "bp_tile", "absmax", "chain", "gpu"
  std::string name;       // what was checked, with the instantiation (e.g. "ldmatrix.x4 TM=32")
  bool ok = false;
  int measured = -1;      // bank-conflict checks: worst ways over all phases; else -1
  int declared = -1;      // bank-conflict checks: the ways smem_layout.h declares; else -1
  long cases = 0;         // elements / instructions / phases examined
  std::string detail;     // first failure (lane, register, half, got, want) or a short summary
};

// Building blocks of a check, shared by the CPU checks (fragcheck.cpp) and the GPU probes
// (apps/kbit-fragcheck/probe.cu).
Check make_check(std::string group, std::string name);  // ok until fail_check
void fail_check(Check& c, std::string why);             // keeps the first failure's detail
template <class... Args>
std::string format_msg(const char* f, Args... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}

// ---- bank-conflict model --------------------------------------------------------------------
// One lane's part of one warp-wide shared-memory instruction.
struct Access {
  int lane = 0;
  int64_t byte_addr = 0;
  int bytes = 4;  // 1, 2, 4, 8 or 16
};
enum class Op { ld_shared, st_shared, cp_async, ldmatrix };
const char* op_name(Op op);

// Ways of one instruction: lanes are split into phases (ldmatrix: one phase per 8x8 matrix =
// lanes 8q..8q+7; otherwise 128 / bytes lanes per phase, at most 32). In a phase, the ways are the
// largest number of distinct 4-byte words any of the 32 banks must serve (same word = broadcast).
// `wavefronts` (optional) receives the sum over phases.
int conflict_ways(const std::vector<Access>& instr, Op op, int* wavefronts = nullptr);

// ---- generic checkers -----------------------------------------------------------------------
using TileOffset = std::function<int(int row, int col)>;
using LaneOffset = std::function<int(int lane)>;
using FragMap = std::function<frag::RowCol(int lane, int reg, int half)>;

// Offsets of a rows x cols tile: in [0, storage), injective, and exactly `storage - rows*cols`
// slots unused (0 for a dense layout: a bijection onto storage).
Check check_tile_bijection(std::string group, std::string name, int rows, int cols, int storage,
                           const TileOffset& offset);
// Every instruction's ways equal `declared` at worst (and are never above it).
Check check_conflicts(std::string group, std::string name, const std::vector<std::vector<Access>>& instrs, Op op,
                      int declared);
// Fills a rows x cols tile of 16-bit codes (row * cols + col) through `store`, runs the ldmatrix
// model with lane addresses `addr`, and requires each (lane, reg, half) to hold the tile element
// `expect` names. Also counts the ldmatrix phases' bank conflicts into `ways` (if given).
Check check_ldmatrix_fragment(std::string group, std::string name, int rows, int cols, int storage,
                              const TileOffset& store, const LaneOffset& addr, int num, bool trans,
                              const FragMap& expect, int* ways = nullptr);
// A (lane, reg, half) map covers the rows x cols matrix exactly once.
Check check_map_bijection(std::string name, int regs, int halves, int rows, int cols, const FragMap& map);
// Two maps agree everywhere.
Check check_map_equal(std::string name, int regs, int halves, const FragMap& got, const FragMap& want);

// Bit-plane tile chain for (TN, k, skewed): random indices and absmax of a [TN x 64] k-tile are
// packed by format.h into a global tiled array, copied chunk by chunk into the layout
// (bp_cp_async_dst_word, padding poisoned), then (1) every lane extracts the index of each B
// fragment element from the planes via bfrag_bp_source (MMA-loop scheme) and (2) the
// dequant-in-fetch threads (deq_thread_block) expand their blocks into the swizzled B tile, which
// the ldmatrix model reads back; both must deliver, to each (lane, reg, half), the index (and
// absmax) of the weight frag::mma_b assigns it. `word_offset` / `dst_word` default to the real
// layout; tests substitute broken ones.
using BpWordOffset = std::function<int(int n, int h, int b)>;
using BpSourceMap = std::function<frag::RowCol(int lane, int reg, int half, int n0, int k0)>;  // {n, kk}
Check check_bp_extraction(int TN, int k, bool skewed, const BpWordOffset& word_offset = {},
                          const BpSourceMap& source = {});
Check check_deq_chain(int TN, int k, bool skewed);

// Per-tile suites; an empty function means the real smem_layout.h one. Tests pass broken ones.
using LdsmOffset = std::function<int(int lane, int r0, int k0)>;  // ldmatrix row address per lane
std::vector<Check> check_a_tile(int TM, const TileOffset& offset = {}, const LdsmOffset& ldsm_x4 = {});
std::vector<Check> check_b_tile(int TN, const TileOffset& offset = {}, const LdsmOffset& ldsm_x2 = {},
                                const LdsmOffset& ldsm_x4 = {});
// `word_offset` replaces the layout everywhere it is read (not the cp.async destination).
std::vector<Check> check_bp_tile(int TN, int k, bool skewed, const BpWordOffset& word_offset = {});

// ---- the full CPU suite -------------------------------------------------------------------------
// Every check of every instantiation (TM in {16,32,64}, TN in {64,128}, k = 2..5, plain and skewed).
std::vector<Check> run_cpu_checks();

// Warp instructions of each access pattern (exposed for tests and the report).
std::vector<std::vector<Access>> bp_frag_read_instrs(int TN, int k, const BpWordOffset& word_offset);
std::vector<std::vector<Access>> bp_block_read_instrs(int TN, int k, int bytes, const BpWordOffset& word_offset);

}  // namespace kbit::fragcheck
