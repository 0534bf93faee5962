// The tcv kernels' k-slot map (lib/kbit/tcv_map.h) on the CPU: a whole warp step of tcv is
// rebuilt register by register the way kernels/tcv.cu builds it (block_offsets, then the E/O word,
// byte and activation word the map names), pushed through the mma.sync m16n8k16 fragment maps of
// lib/kbit/fragment.h (which kbit-fragcheck proves against the hardware), and compared with the
// plain dot products of the weights and activations.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kbit/block_decode.h"
#include "kbit/format.h"
#include "kbit/fragment.h"
#include "kbit/rng.h"
#include "kbit/tcv_map.h"

namespace {

using kbit::frag::Acc;
using kbit::frag::RowCol;
namespace tcv = kbit::tcv;

using AElem = int (*)(int, int, int);

// The inputs of one simulated warp step (16 weight rows x 4 blocks of random bit planes and scales,
// 8 tokens x 128 activations, a random codebook) and the reference D[n][m] = sum_k W[n][k] A[m][k].
template <int KB>
struct StepData {
  static constexpr int kRows = 16, kTokens = 8;
  uint32_t words[kRows][tcv::kStepBlocks][KB];
  double scale[kRows][tcv::kStepBlocks], act[kTokens][tcv::kStepK], cb[1 << KB];
  double ref[kRows][kTokens] = {};
  explicit StepData(kbit::Rng& rng) {
    for (auto& row : words)
      for (auto& blk : row)
        for (uint32_t& w : blk) w = static_cast<uint32_t>(rng.next());
    for (auto& row : scale)
      for (double& x : row) x = 0.5 + rng.uniform();
    for (auto& tok : act)
      for (double& x : tok) x = rng.uniform() - 0.5;
    for (double& c : cb) c = rng.uniform() - 0.5;
    for (int n = 0; n < kRows; ++n)
      for (int m = 0; m < kTokens; ++m)
        for (int k = 0; k < tcv::kStepK; ++k)
          ref[n][m] += cb[kbit::unpack_index(words[n][k / kbit::kBlockSize], k % kbit::kBlockSize, KB)] *
                       scale[n][k / kbit::kBlockSize] * act[m][k];
  }
};

// The warp's mma as the tensor core computes it: acc[lane][r] += (A B)[row, col] of C register r.
void mma_accumulate(const double (&A)[kbit::frag::kMmaM][kbit::frag::kMmaK],
                    const double (&B)[kbit::frag::kMmaK][kbit::frag::kMmaN], double (&acc)[kbit::frag::kWarpSize][4]) {
  for (int lane = 0; lane < kbit::frag::kWarpSize; ++lane)
    for (int r = 0; r < 4; ++r) {
      const RowCol mn = kbit::frag::mma_c(lane, r, 0, Acc::f32);
      for (int s = 0; s < kbit::frag::kMmaK; ++s) acc[lane][r] += A[mn.row][s] * B[s][mn.col];
    }
}

// Largest |acc - ref| over the step's outputs (1e30 when a value is NaN: a lookup found no entry).
double worst_error(const double (&acc)[kbit::frag::kWarpSize][4], const double (&ref)[16][8]) {
  double worst = 0;
  for (int lane = 0; lane < kbit::frag::kWarpSize; ++lane)
    for (int r = 0; r < 4; ++r) {
      const double e = std::fabs(acc[lane][r] - ref[tcv::c_row(lane, r)][tcv::c_token(lane, r)]);
      worst = std::isnan(e) ? 1e30 : std::max(worst, e);
    }
  return worst;
}

// One warp step: 16 weight rows x 4 blocks (k bit-plane words each, a scale each), 8 tokens x 128
// activations. Returns the largest |D_sim - D_ref| over the 16 x 8 outputs.
template <int KB>
double simulate_step(kbit::Rng& rng, AElem a_elem) {
  const StepData<KB> d(rng);

  // The kernel: lane (g, q) decodes block q of rows g and g + 8 once per step.
  double acc[kbit::frag::kWarpSize][4] = {};
  for (int i = 0; i < tcv::kMmasPerStep; ++i) {
    double A[kbit::frag::kMmaM][kbit::frag::kMmaK] = {}, B[kbit::frag::kMmaK][kbit::frag::kMmaN] = {};
    for (int lane = 0; lane < kbit::frag::kWarpSize; ++lane) {
      const int g = lane / 4, q = tcv::lane_block(lane);
      uint32_t E[2][4], O[2][4];
      for (int j = 0; j < 2; ++j) kbit::block_offsets<KB>(d.words[g + 8 * j][q], E[j], O[j]);
      // As in tcv.cu: one word set (E or O) and one byte per mma, from element a_elem(i, 0, 0).
      const int c = tcv::elem_byte(a_elem(i, 0, 0));
      const bool odd = tcv::elem_in_odd(a_elem(i, 0, 0));
      for (int r = 0; r < kbit::frag::kARegs; ++r)
        for (int h = 0; h < 2; ++h) {
          const int j = r & 1, e = a_elem(i, r, h);
          const uint32_t w = odd ? O[j][tcv::elem_word(e)] : E[j][tcv::elem_word(e)];
          const int idx = kbit::offset_byte(w, c) / 4;
          const RowCol mk = kbit::frag::mma_a(lane, r, h);
          A[mk.row][mk.col] = d.cb[idx] * d.scale[g + 8 * j][q];
        }
      for (int r = 0; r < kbit::frag::kBRegs; ++r)
        for (int h = 0; h < 2; ++h) {
          const RowCol kn = kbit::frag::mma_b(lane, r, h);  // token g = lane / 4
          B[kn.row][kn.col] = d.act[g][kbit::kBlockSize * q + 2 * tcv::b_word(i, r) + h];
        }
    }
    mma_accumulate(A, B, acc);
  }
  return worst_error(acc, d.ref);
}

template <int KB>
void check_steps() {
  kbit::Rng rng(0x7C50 + KB);
  double worst = 0;
  for (int s = 0; s < 50; ++s) worst = std::max(worst, simulate_step<KB>(rng, tcv::a_elem));
  CHECK_MESSAGE(worst < 1e-9, "k=", KB, " worst |D - ref| ", worst);
}

// The k = 2, 3 byte-table path, as tcv.cu runs it: every (row, block) gets a table of 2^k distinct
// random 16-bit codes (standing for the rounded cb[idx] * scale), byte_tables + block_table_pairs
// give the A registers, and B registers are PRMT joins of activation words whose 16-bit halves
// are the element numbers. Codes are mapped back to values, so a wrong table byte, pair, word or
// selector changes the result. `pair_r` lets the test hand in a wrong map.
using PairR = int (*)(int, int);

template <int KB>
double simulate_step_bt(kbit::Rng& rng, PairR pair_r) {
  constexpr int kEntries = 1 << KB;
  const StepData<KB> d(rng);
  uint16_t code[StepData<KB>::kRows][tcv::kStepBlocks][kEntries];
  for (auto& row : code)
    for (auto& blk : row)
      for (int e = 0; e < kEntries; ++e) {
        bool fresh = false;
        while (!fresh) {
          blk[e] = static_cast<uint16_t>(rng.next());
          fresh = true;
          for (int f = 0; f < e; ++f) fresh = fresh && blk[f] != blk[e];
        }
      }
  auto value_of = [&](int n, int q, uint32_t c16) {  // the code back to cb[idx] * scale (NaN: no such entry)
    for (int e = 0; e < kEntries; ++e)
      if (code[n][q][e] == c16) return d.cb[e] * d.scale[n][q];
    return std::nan("");
  };

  double acc[kbit::frag::kWarpSize][4] = {};
  for (int i = 0; i < tcv::kMmasPerStep; ++i) {
    double A[kbit::frag::kMmaM][kbit::frag::kMmaK] = {}, B[kbit::frag::kMmaK][kbit::frag::kMmaN] = {};
    for (int lane = 0; lane < kbit::frag::kWarpSize; ++lane) {
      const int g = lane / 4, q = tcv::lane_block(lane);
      uint32_t W[2][4][4];
      for (int j = 0; j < 2; ++j) {
        uint32_t P[1 << (KB - 1)], L[2], H[2];
        for (int p = 0; p < (1 << (KB - 1)); ++p)
          P[p] = code[g + 8 * j][q][2 * p] | static_cast<uint32_t>(code[g + 8 * j][q][2 * p + 1]) << 16;
        kbit::byte_tables<KB>(P, L, H);
        kbit::block_table_pairs<KB>(d.words[g + 8 * j][q], L, H, W[j]);
      }
      for (int r = 0; r < kbit::frag::kARegs; ++r) {
        const uint32_t a = W[r & 1][pair_r(i, r)][tcv::bt_pair_c(i)];
        for (int h = 0; h < 2; ++h) {
          const RowCol mk = kbit::frag::mma_a(lane, r, h);
          A[mk.row][mk.col] = value_of(g + 8 * (r & 1), q, (a >> (16 * h)) & 0xFFFFu);
        }
      }
      for (int r = 0; r < kbit::frag::kBRegs; ++r) {
        auto word = [&](int w) { return static_cast<uint32_t>(2 * w) | static_cast<uint32_t>(2 * w + 1) << 16; };
        const uint32_t b = kbit::byte_perm(word(tcv::bt_b_word(i, r, 0)), word(tcv::bt_b_word(i, r, 1)), tcv::bt_b_sel(i, r));
        for (int h = 0; h < 2; ++h) {
          const RowCol kn = kbit::frag::mma_b(lane, r, h);
          B[kn.row][kn.col] = d.act[g][kbit::kBlockSize * q + ((b >> (16 * h)) & 0xFFFFu)];
        }
      }
    }
    mma_accumulate(A, B, acc);
  }
  return worst_error(acc, d.ref);
}

int bt_pair_r_swapped(int i, int reg) { return tcv::bt_pair_r(i, reg ^ 2); }

int a_elem_halves_swapped(int i, int reg, int half) { return tcv::a_elem(i, reg, 1 - half); }
int a_elem_regs_swapped(int i, int reg, int half) { return tcv::a_elem(i, reg ^ 2, half); }

}  // namespace

TEST_CASE("tcv map: the 8 mma of a step cover each of the 128 k exactly once") {
  std::vector<int> seen(tcv::kStepK, 0);
  for (int i = 0; i < tcv::kMmasPerStep; ++i)
    for (int slot = 0; slot < kbit::frag::kMmaK; ++slot) {
      const int k = tcv::slot_k(i, slot);
      REQUIRE(k >= 0);
      REQUIRE(k < tcv::kStepK);
      ++seen[size_t(k)];
    }
  for (int k = 0; k < tcv::kStepK; ++k) CHECK_MESSAGE(seen[size_t(k)] == 1, "k ", k);
}

TEST_CASE("tcv map: A and B registers name the same k for every lane, and C matches mma_c") {
  int bad = 0;
  for (int i = 0; i < tcv::kMmasPerStep; ++i)
    for (int lane = 0; lane < kbit::frag::kWarpSize; ++lane) {
      const int q = tcv::lane_block(lane);
      for (int r = 0; r < kbit::frag::kARegs; ++r)
        for (int h = 0; h < 2; ++h) {
          const RowCol mk = kbit::frag::mma_a(lane, r, h);
          bad += mk.row != (lane >> 2) + 8 * (r & 1);  // the kernel's row for register r
          bad += tcv::slot_k(i, mk.col) != kbit::kBlockSize * q + tcv::a_elem(i, r, h);
          // the kernel reads all of mma i from one E/O word set and one byte
          bad += tcv::elem_in_odd(tcv::a_elem(i, r, h)) != tcv::elem_in_odd(tcv::a_elem(i, 0, 0));
          bad += tcv::elem_byte(tcv::a_elem(i, r, h)) != tcv::elem_byte(tcv::a_elem(i, 0, 0));
        }
      for (int r = 0; r < kbit::frag::kBRegs; ++r)
        for (int h = 0; h < 2; ++h) {
          const RowCol kn = kbit::frag::mma_b(lane, r, h);
          bad += kn.col != (lane >> 2);
          bad += tcv::slot_k(i, kn.row) != kbit::kBlockSize * q + 2 * tcv::b_word(i, r) + h;
        }
      for (int r = 0; r < 4; ++r) {
        const RowCol mn = kbit::frag::mma_c(lane, r, 0, Acc::f32);
        bad += mn.row != tcv::c_row(lane, r);
        bad += mn.col != tcv::c_token(lane, r);
      }
    }
  CHECK(bad == 0);
}

TEST_CASE("tcv map: a simulated warp step equals the dot products, k = 2..5") {
  check_steps<2>();
  check_steps<3>();
  check_steps<4>();
  check_steps<5>();
}

TEST_CASE("tcv map: the step simulation catches a wrong map") {
  kbit::Rng rng(99);
  CHECK(simulate_step<4>(rng, tcv::a_elem) < 1e-9);
  CHECK(simulate_step<4>(rng, a_elem_halves_swapped) > 1e-3);
  CHECK(simulate_step<4>(rng, a_elem_regs_swapped) > 1e-3);
}

TEST_CASE("tcv byte-table map (k = 2, 3): the 8 mma of a step cover each of the 128 k exactly once") {
  std::vector<int> seen(tcv::kStepK, 0);
  for (int i = 0; i < tcv::kMmasPerStep; ++i)
    for (int slot = 0; slot < kbit::frag::kMmaK; ++slot) ++seen[size_t(tcv::bt_slot_k(i, slot))];
  for (int k = 0; k < tcv::kStepK; ++k) CHECK_MESSAGE(seen[size_t(k)] == 1, "k ", k);
}

TEST_CASE("tcv byte-table map: a simulated warp step equals the dot products, k = 2, 3") {
  for (int s = 0; s < 30; ++s) {
    kbit::Rng rng(0xB7 + static_cast<uint64_t>(s));
    const double w2 = simulate_step_bt<2>(rng, tcv::bt_pair_r), w3 = simulate_step_bt<3>(rng, tcv::bt_pair_r);
    CHECK_MESSAGE(w2 < 1e-9, "k=2 seed ", s, " worst ", w2);
    CHECK_MESSAGE(w3 < 1e-9, "k=3 seed ", s, " worst ", w3);
  }
}

TEST_CASE("tcv byte-table map: the step simulation catches a wrong pair map") {
  kbit::Rng rng(7);
  CHECK(simulate_step_bt<3>(rng, tcv::bt_pair_r) < 1e-9);
  CHECK(simulate_step_bt<3>(rng, bt_pair_r_swapped) > 1e-3);
}

// ---------------------------------------------------------------------------------------------
// tcw: the activation tile the pre-pass writes (kernels/tcw.cu, tcw_permute_kernel: every 16-byte
// row filled through tcw_byte_token / tcw_byte_islot and the slot map) read back the way wgmma
// reads B through the descriptor tcw_desc builds (PTX ISA: K-major, no swizzle, element (k-slot j,
// column n) at start + (n / 8) * SBO + (j / 8) * LBO + (n % 8) * 16 + (j % 8) * 2, fields decoded
// from the descriptor bits): k-slot j of sub-step i must hold the activation the slot map names.
namespace {
using SlotMap = int (*)(int, int);

// The tile is written with `written` (the pre-pass) and checked against `want` (the decode).
int tcw_tile_mismatches(SlotMap written, SlotMap want, int tokens, uint32_t base) {
  kbit::Rng rng(0x7C3);
  std::vector<uint16_t> act(size_t(tokens) * tcv::kStepK);
  for (auto& a : act) a = static_cast<uint16_t>(rng.next());
  std::vector<uint16_t> tile(act.size(), 0);
  std::vector<int> writes(act.size(), 0);
  for (int row = 0; row < tokens * tcv::kStepK * 2 / 16; ++row) {  // as tcw_permute_kernel
    const int byte = 16 * row, n = tcv::tcw_byte_token(byte), islot = tcv::tcw_byte_islot(byte);
    for (int e = 0; e < 8; ++e) {
      const int k = written((islot + e) / 16, (islot + e) % 16);
      tile[size_t(byte / 2 + e)] = act[size_t(n) * tcv::kStepK + size_t(k)];
      ++writes[size_t(byte / 2 + e)];
    }
  }
  int bad = 0;
  for (int w : writes) bad += w != 1;
  for (int i = 0; i < tcv::kMmasPerStep; ++i) {
    const uint64_t d = tcv::tcw_desc(base + uint32_t(i * 2 * tcv::kTcwLbo));
    const uint32_t start = uint32_t(d & 0x3FFF) << 4, lbo = uint32_t((d >> 16) & 0x3FFF) << 4,
                   sbo = uint32_t((d >> 32) & 0x3FFF) << 4, swizzle = uint32_t(d >> 62);
    bad += swizzle != 0;
    for (int n = 0; n < tokens; ++n)
      for (int j = 0; j < 16; ++j) {
        const uint32_t addr = start + (n / 8) * sbo + (j / 8) * lbo + (n % 8) * 16 + (j % 8) * 2;
        const uint16_t got = tile[(addr - base) / 2];
        bad += got != act[size_t(n) * tcv::kStepK + size_t(want(i, j))];
      }
  }
  return bad;
}
int slot_k_shifted(int i, int slot) { return tcv::slot_k(i, slot ^ 1); }
}  // namespace

TEST_CASE("tcw: the permuted activation tile read through the wgmma descriptor gives the slot map") {
  for (int tokens : {32, 64, 128, 256}) {
    CHECK_MESSAGE(tcw_tile_mismatches(tcv::slot_k, tcv::slot_k, tokens, 0x400) == 0, "slot_k, tokens ", tokens);
    CHECK_MESSAGE(tcw_tile_mismatches(tcv::bt_slot_k, tcv::bt_slot_k, tokens, 0x10400) == 0, "bt_slot_k, tokens ", tokens);
  }
  CHECK(tcw_tile_mismatches(slot_k_shifted, tcv::slot_k, 64, 0x400) > 0);  // the check can fail
  CHECK(tcw_tile_mismatches(tcv::slot_k, tcv::bt_slot_k, 64, 0x400) > 0);
}
