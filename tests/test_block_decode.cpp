// block_offsets (lib/kbit/block_decode.h) is the decode the gemv, mma and tcv kernels run; here it runs
// on the CPU against the reference unpack_index of FORMAT §5 for every element of every block.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kbit/block_decode.h"
#include "kbit/format.h"
#include "kbit/rng.h"

namespace {

template <int KB>
int check_block(const uint32_t (&w)[KB]) {
  uint32_t E[4], O[4];
  kbit::block_offsets<KB>(w, E, O);
  int bad = 0;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      // byte c of E[r] is element 8c + r, byte c of O[r] element 8c + 4 + r, both as 4 * index
      const int even = kbit::unpack_index(w, 8 * c + r, KB), odd = kbit::unpack_index(w, 8 * c + 4 + r, KB);
      bad += kbit::offset_byte(E[r], c) != 4 * even;
      bad += kbit::offset_byte(O[r], c) != 4 * odd;
    }
  return bad;
}

template <int KB>
void check_all_patterns() {
  uint32_t w[KB] = {};
  CHECK(check_block<KB>(w) == 0);
  for (int b = 0; b < KB; ++b) w[b] = 0xFFFFFFFFu;
  CHECK(check_block<KB>(w) == 0);
  // every single bit alone: each plane bit must land in exactly its element's byte
  for (int b = 0; b < KB; ++b)
    for (int j = 0; j < 32; ++j) {
      uint32_t one[KB] = {};
      one[b] = 1u << j;
      CHECK_MESSAGE(check_block<KB>(one) == 0, "k=", KB, " plane ", b, " bit ", j);
    }
  kbit::Rng rng(0xB10C0 + KB);
  int bad = 0;
  for (int i = 0; i < 20000; ++i) {
    for (int b = 0; b < KB; ++b) w[b] = static_cast<uint32_t>(rng.next());
    bad += check_block<KB>(w);
  }
  CHECK(bad == 0);
}

// The k = 2 plane inputs of the pair-decode tests: zero and all-ones planes, every single bit,
// 20,000 random plane pairs from `seed` -- decode(w, out) must give bad_of(w, out) == 0 on all of
// them -- and planes swapped, which must give mismatches (the check can fail).
template <class Decode, class BadOf>
void check_k2_planes(Decode decode, BadOf bad_of, uint64_t seed) {
  auto check = [&](const uint32_t (&w)[2]) {
    uint32_t out[4];
    decode(w, out);
    return bad_of(w, out);
  };
  uint32_t w[2] = {0u, 0u};
  CHECK(check(w) == 0);
  w[0] = w[1] = 0xFFFFFFFFu;
  CHECK(check(w) == 0);
  for (int b = 0; b < 2; ++b)
    for (int j = 0; j < 32; ++j) {
      const uint32_t one[2] = {b == 0 ? 1u << j : 0u, b == 1 ? 1u << j : 0u};
      CHECK_MESSAGE(check(one) == 0, "plane ", b, " bit ", j);
    }
  kbit::Rng rng(seed);
  int bad = 0;
  for (int i = 0; i < 20000; ++i) {
    w[0] = static_cast<uint32_t>(rng.next());
    w[1] = static_cast<uint32_t>(rng.next());
    bad += check(w);
  }
  CHECK(bad == 0);
  const uint32_t x[2] = {0x12345678u, 0x9ABCDEF0u}, swapped[2] = {x[1], x[0]};
  uint32_t out[4];
  decode(swapped, out);
  CHECK(bad_of(x, out) > 0);
}

}  // namespace

TEST_CASE("block_offsets gives 4 * index of every element, k = 2..5") {
  check_all_patterns<2>();
  check_all_patterns<3>();
  check_all_patterns<4>();
  check_all_patterns<5>();
}

TEST_CASE("block_offsets: a wrong plane order is caught") {
  // the check above must be able to fail: swap two planes and the offsets no longer match
  uint32_t w[4] = {0x12345678u, 0x9ABCDEF0u, 0x0F0F0F0Fu, 0x33333333u};
  CHECK(check_block<4>(w) == 0);
  uint32_t E[4], O[4];
  const uint32_t swapped[4] = {w[1], w[0], w[2], w[3]};
  kbit::block_offsets<4>(swapped, E, O);
  int differ = 0;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) differ += kbit::offset_byte(E[r], c) != 4 * kbit::unpack_index(w, 8 * c + r, 4);
  CHECK(differ > 0);
}

TEST_CASE("block_pair_offsets2 gives 8 * (idx_lo | idx_hi << 2) of every element pair, k = 2") {
  // Mismatches between P (from any planes) and the offsets the planes `w` call for.
  auto bad_of = [](const uint32_t (&w)[2], const uint32_t (&P)[4]) {
    int bad = 0;
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) {
        const int lo = kbit::unpack_index(w, 8 * c + r, 2), hi = kbit::unpack_index(w, 8 * c + 4 + r, 2);
        bad += kbit::offset_byte(P[r], c) != 8 * (lo | hi << 2);
      }
    return bad;
  };
  check_k2_planes([](const uint32_t (&w)[2], uint32_t (&P)[4]) { kbit::block_pair_offsets2(w, P); }, bad_of, 0xB1C2);
}

TEST_CASE("block_adjacent_pairs2: byte c of Q[s] codes the pair at element 8c + 2s, k = 2") {
  auto run = [](auto entry_tag) {
    constexpr int kEntry = decltype(entry_tag)::value;
    CAPTURE(kEntry);
    // Mismatches between Q (from any planes) and the codes the planes `w` call for.
    auto bad_of = [](const uint32_t (&w)[2], const uint32_t (&Q)[4]) {
      int bad = 0;
      for (int c = 0; c < 4; ++c)
        for (int s = 0; s < 4; ++s) {
          const int e = 8 * c + 2 * s, off = kbit::offset_byte(Q[s], c);
          const int v = off / kEntry;
          bad += off % kEntry != 0 || v > 15 || kbit::adjacent_pair_lo(v) != kbit::unpack_index(w, e, 2) ||
                 kbit::adjacent_pair_hi(v) != kbit::unpack_index(w, e + 1, 2);
        }
      return bad;
    };
    check_k2_planes([](const uint32_t (&w)[2], uint32_t (&Q)[4]) { kbit::block_adjacent_pairs2<kEntry>(w, Q); },
                    bad_of, 0xA0B1);
  };
  run(std::integral_constant<int, 4>{});  // tcv's 16-bit pair table
  run(std::integral_constant<int, 8>{});  // gemv's float2 pair table
  // the 16 codes name 16 distinct index pairs (each table has one entry per pair)
  int seen = 0;
  for (int v = 0; v < 16; ++v) seen |= 1 << (kbit::adjacent_pair_lo(v) | kbit::adjacent_pair_hi(v) << 2);
  CHECK(seen == 0xFFFF);
}

TEST_CASE("block_adjacent_nibbles: byte c of Q[s] codes the pair at element 8c + 2s, k = 3, 4") {
  auto run = [](auto kb_tag, uint64_t seed) {
    constexpr int KB = decltype(kb_tag)::value;
    CAPTURE(KB);
    // Mismatches between Q of the planes w and the indices unpack_index reads from them.
    auto bad_of = [](const uint32_t (&w)[KB]) {
      uint32_t Q[4];
      kbit::block_adjacent_nibbles<KB>(w, Q);
      int bad = 0;
      for (int c = 0; c < 4; ++c)
        for (int s = 0; s < 4; ++s) {
          const int e = 8 * c + 2 * s, v = kbit::offset_byte(Q[s], c);
          bad += kbit::adjacent_nibble_lo(v) != kbit::unpack_index(w, e, KB) ||
                 kbit::adjacent_nibble_hi(v) != kbit::unpack_index(w, e + 1, KB) || (KB == 3 && v >= 64);
        }
      return bad;
    };
    uint32_t w[KB] = {};
    CHECK(bad_of(w) == 0);
    for (int b = 0; b < KB; ++b)
      for (int j = 0; j < 32; ++j) {  // every plane bit alone lands in its element's bits only
        uint32_t one[KB] = {};
        one[b] = 1u << j;
        CHECK_MESSAGE(bad_of(one) == 0, "plane ", b, " bit ", j);
      }
    kbit::Rng rng(seed);
    int bad = 0;
    for (int n = 0; n < 20000; ++n) {
      for (int b = 0; b < KB; ++b) w[b] = static_cast<uint32_t>(rng.next());
      bad += bad_of(w);
    }
    CHECK(bad == 0);
  };
  run(std::integral_constant<int, 3>{}, 0xAD03);
  run(std::integral_constant<int, 4>{}, 0xAD04);
  // the 256 codes name 256 distinct index pairs (the k = 4 table has one entry per pair)
  std::vector<int> seen(256, 0);
  for (int v = 0; v < 256; ++v) seen[size_t(kbit::adjacent_nibble_lo(v) | kbit::adjacent_nibble_hi(v) << 4)]++;
  CHECK(std::count(seen.begin(), seen.end(), 1) == 256);
}

TEST_CASE("block_table_pairs: every element gets its own table entry, k = 2, 3") {
  auto run = [](auto kb_tag, uint64_t seed, bool swap_tables) {
    constexpr int KB = decltype(kb_tag)::value;
    kbit::Rng rng(seed);
    int bad = 0;
    for (int it = 0; it < 2000; ++it) {
      uint32_t w[KB], P[1 << (KB - 1)], L[2], H[2], W[4][4];
      uint16_t code[1 << KB];
      for (uint32_t& x : w) x = static_cast<uint32_t>(rng.next());
      for (uint16_t& c : code) c = static_cast<uint16_t>(rng.next());
      for (int p = 0; p < (1 << (KB - 1)); ++p) P[p] = code[2 * p] | static_cast<uint32_t>(code[2 * p + 1]) << 16;
      kbit::byte_tables<KB>(P, L, H);
      if (swap_tables) std::swap(L, H);
      kbit::block_table_pairs<KB>(w, L, H, W);
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
          bad += (W[r][c] & 0xFFFFu) != code[kbit::unpack_index(w, 8 * c + r, KB)];
          bad += (W[r][c] >> 16) != code[kbit::unpack_index(w, 8 * c + 4 + r, KB)];
        }
    }
    return bad;
  };
  CHECK(run(std::integral_constant<int, 2>{}, 21, false) == 0);
  CHECK(run(std::integral_constant<int, 3>{}, 22, false) == 0);
  CHECK(run(std::integral_constant<int, 3>{}, 23, true) > 0);  // and it can fail
}
