// kbit-fragcheck on the CPU: every check of every smem_layout.h instantiation passes, the bank
// conflict model counts what it should, and deliberately broken layouts (a wrong XOR term, the
// seed-000 stride-8 bit-plane tile declared conflict-free, a transposed fragment, off-by-one row
// maps) are each caught.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "kbit/fragcheck.h"
#include "kbit/fragment.h"
#include "kbit/smem_layout.h"

using namespace kbit;
using namespace kbit::fragcheck;

namespace {

bool all_ok(const std::vector<Check>& v) {
  for (const Check& c : v)
    if (!c.ok) return false;
  return true;
}
// The first check whose name contains `part`.
const Check& find(const std::vector<Check>& v, const std::string& part) {
  for (const Check& c : v)
    if (c.name.find(part) != std::string::npos) return c;
  FAIL("no check named like " << part);
  static Check none;
  return none;
}

}  // namespace

TEST_CASE("fragcheck: every CPU check of every layout instantiation passes") {
  const std::vector<Check> checks = run_cpu_checks();
  CHECK(checks.size() >= 190);
  int conflict_checks = 0;
  for (const Check& c : checks) {
    CAPTURE(c.group);
    CAPTURE(c.name);
    CAPTURE(c.detail);
    CHECK(c.ok);
    CHECK(c.cases > 0);
    if (c.declared >= 0) {
      ++conflict_checks;
      CHECK(c.measured == c.declared);
    }
  }
  CHECK(conflict_checks >= 92);
}

TEST_CASE("fragcheck: bank-conflict model counts phases and ways") {
  std::vector<Access> in;
  for (int l = 0; l < 32; ++l) in.push_back({l, 0, 4});  // one word: broadcast
  CHECK(conflict_ways(in, Op::ld_shared) == 1);
  in.clear();
  for (int l = 0; l < 32; ++l) in.push_back({l, 128 * l, 4});  // all lanes in bank 0
  CHECK(conflict_ways(in, Op::ld_shared) == 32);
  in.clear();
  int wf = 0;
  for (int l = 0; l < 32; ++l) in.push_back({l, 16 * l, 16});  // 512 contiguous bytes: 4 clean phases
  CHECK(conflict_ways(in, Op::st_shared, &wf) == 1);
  CHECK(wf == 4);
  in.clear();
  for (int l = 0; l < 8; ++l) in.push_back({l, 128 * l, 16});  // ldmatrix rows 128 B apart, no swizzle
  CHECK(conflict_ways(in, Op::ldmatrix) == 8);
  in.clear();
  for (int l = 0; l < 8; ++l) in.push_back({l, 128 * l + 16 * l, 16});  // the XOR-swizzled rows
  CHECK(conflict_ways(in, Op::ldmatrix) == 1);
}

TEST_CASE("fragcheck: the seed-000 stride-8 conflict is counted - plain k=4 is 2-way and skewed is clean") {
  for (int TN : {64, 128}) {
    const auto plain = bp_frag_read_instrs(TN, 4, [](int n, int h, int b) { return smem::bp_word_offset(n, h, b, 4, false); });
    const auto skew = bp_frag_read_instrs(TN, 4, [](int n, int h, int b) { return smem::bp_word_offset(n, h, b, 4, true); });
    const Check p = check_conflicts("bp_tile", "plain", plain, Op::ld_shared, 2);
    const Check s = check_conflicts("bp_tile", "skewed", skew, Op::ld_shared, 1);
    CHECK(p.ok);
    CHECK(p.measured == 2);
    CHECK(s.ok);
    CHECK(s.measured == 1);
    int wf_plain = 0, wf_skew = 0;
    for (const auto& i : plain) wf_plain += [&] { int w = 0; conflict_ways(i, Op::ld_shared, &w); return w; }();
    for (const auto& i : skew) wf_skew += [&] { int w = 0; conflict_ways(i, Op::ld_shared, &w); return w; }();
    CHECK(wf_plain == 2 * wf_skew);
  }
}

TEST_CASE("broken: a stride-8 bit-plane tile for k=4 declared conflict-free is caught") {
  // Seed 000 §2.6: stride 2k = 8 words per column, declared 1-way.
  const BpWordOffset stride8 = [](int n, int h, int b) { return n * 8 + h * 4 + b; };
  const Check c = check_conflicts("bp_tile", "stride 8 declared free", bp_frag_read_instrs(64, 4, stride8),
                                  Op::ld_shared, 1);
  CHECK_FALSE(c.ok);
  CHECK(c.measured == 2);
  CHECK(c.detail.find("2-way") != std::string::npos);
  // The same layout passed off as the skewed one fails the full bit-plane suite.
  const std::vector<Check> suite = check_bp_tile(64, 4, true, stride8);
  CHECK_FALSE(find(suite, "MMA-loop").ok);
  CHECK_FALSE(all_ok(suite));
  // And a stale declaration (2-way declared for the clean skewed layout) fails too.
  const auto skew = bp_frag_read_instrs(64, 4, [](int n, int h, int b) { return smem::bp_word_offset(n, h, b, 4, true); });
  CHECK_FALSE(check_conflicts("bp_tile", "stale", skew, Op::ld_shared, 2).ok);
}

TEST_CASE("broken: a wrong XOR term in the A swizzle is caught") {
  // chunk ^ (row & 3): still a bijection, but rows r and r+4 share a chunk -> 2-way ldmatrix.
  const TileOffset xor3 = [](int m, int kk) { return m * 64 + ((kk / 8) ^ (m & 3)) * 8 + kk % 8; };
  const LdsmOffset ldsm3 = [&](int lane, int m0, int k0) {
    const int q = lane / 8, r = lane % 8;
    return xor3(m0 + r + 8 * (q & 1), k0 + 8 * (q >> 1));
  };
  for (int TM : {16, 32, 64}) {
    const std::vector<Check> v = check_a_tile(TM, xor3, ldsm3);
    CHECK(find(v, "layout").ok);  // the bijection alone does not see it
    const Check& fr = find(v, "ldmatrix.x4");
    CHECK_FALSE(fr.ok);
    CHECK(fr.measured == 2);
  }
  // Stored with the right swizzle, addressed with a wrong one: fragments come back wrong.
  const LdsmOffset ldsm_bad = [](int lane, int m0, int k0) {
    const int q = lane / 8, r = lane % 8, m = m0 + r + 8 * (q & 1), kk = k0 + 8 * (q >> 1);
    return m * 64 + ((kk / 8) ^ ((m >> 1) & 7)) * 8;
  };
  const std::vector<Check> v = check_a_tile(64, {}, ldsm_bad);
  const Check& fr = find(v, "ldmatrix.x4");
  CHECK_FALSE(fr.ok);
  CHECK(fr.detail.find("lane") != std::string::npos);
  // A swizzle term that leaves the row: chunk ^ (row & 15) goes out of bounds.
  const TileOffset xor15 = [](int m, int kk) { return m * 64 + ((kk / 8) ^ (m & 15)) * 8 + kk % 8; };
  CHECK_FALSE(find(check_b_tile(64, xor15), "layout").ok);
}

TEST_CASE("broken: a transposed fragment is caught") {
  // B tile read with .trans: each lane gets (k, n) swapped.
  const int TN = 64;
  const Check c = check_ldmatrix_fragment(
      "b_tile", "trans", TN, 64, smem::b_tile_halves(TN), smem::b_tile_offset,
      [](int l) { return smem::b_ldmatrix_x2_offset(l, 0, 0); }, 2, true,
      [](int l, int r, int h) {
        const frag::RowCol kn = frag::mma_b(l, r, h);
        return frag::RowCol{kn.col, kn.row};
      });
  CHECK_FALSE(c.ok);
  CHECK(c.detail.find("got") != std::string::npos);
  // A transposed mma A map disagrees with the PTX table.
  const FragMap a_t = [](int l, int r, int h) {
    const frag::RowCol mk = frag::mma_a(l, r, h);
    return frag::RowCol{mk.col, mk.row};
  };
  CHECK(check_map_bijection("A^T", 4, 2, 16, 16, a_t).ok);  // a bijection, yet wrong
  CHECK_FALSE(check_map_equal("A^T vs A", 4, 2, a_t, frag::mma_a).ok);
  // A transposed B map does not even fit k16 x n8.
  CHECK_FALSE(check_map_bijection("B^T", 2, 2, 16, 8, [](int l, int r, int h) {
                const frag::RowCol kn = frag::mma_b(l, r, h);
                return frag::RowCol{kn.col, kn.row + 8};
              }).ok);
}

TEST_CASE("broken: off-by-one row maps are caught") {
  // ldmatrix row address one row down.
  const LdsmOffset a_off1 = [](int lane, int m0, int k0) {
    const int q = lane / 8, r = lane % 8;
    return smem::a_tile_offset(m0 + r + 1 + 8 * (q & 1), k0 + 8 * (q >> 1));
  };
  const Check& fa = find(check_a_tile(32, {}, a_off1), "ldmatrix.x4");
  CHECK_FALSE(fa.ok);
  // B x4 with the second n-block one row off.
  const LdsmOffset b_off1 = [](int lane, int n0, int k0) {
    const int q = lane / 8, r = lane % 8;
    return smem::b_tile_offset(n0 + r + 9 * (q >> 1), k0 + 8 * (q & 1));
  };
  CHECK_FALSE(find(check_b_tile(128, {}, {}, b_off1), "ldmatrix.x4").ok);
  // mma C map with row g + 1.
  const FragMap c_off1 = [](int l, int r, int h) {
    const frag::RowCol mn = frag::mma_c(l, r, h, frag::Acc::f32);
    return frag::RowCol{(mn.row + 1) % 16, mn.col};
  };
  CHECK_FALSE(check_map_equal("C off by one", 4, 1, c_off1,
                              [](int l, int r, int h) { return frag::mma_c(l, r, h, frag::Acc::f32); }).ok);
  // Bit-plane reads one column (n) off: the extracted indices are wrong.
  for (int k = kMinBits; k <= kMaxBits; ++k) {
    CAPTURE(k);
    const Check e = check_bp_extraction(64, k, true, [k](int n, int h, int b) {
      return smem::bp_word_offset((n + 1) % 64, h, b, k, true);
    });
    CHECK_FALSE(e.ok);
    CHECK(e.detail.find("lane") != std::string::npos);
  }
  // Extraction reading block element j + 1.
  const Check ej = check_bp_extraction(128, 4, false, {}, [](int lane, int reg, int half, int n0, int k0) {
    const smem::BpSource s = smem::bfrag_bp_source(lane, reg, half, n0, k0);
    return frag::RowCol{s.n, s.h * 32 + (s.j + 1) % 32};
  });
  CHECK_FALSE(ej.ok);
}

TEST_CASE("fragment model: the ldmatrix simulation rejects bad addresses") {
  std::vector<uint16_t> smem(64, 0);
  int offs[32];
  uint32_t out[32][4];
  for (int l = 0; l < 32; ++l) offs[l] = 8 * (l % 8);
  CHECK(frag::simulate_ldmatrix(smem.data(), smem.size(), offs, 1, false, out).empty());
  CHECK_FALSE(frag::simulate_ldmatrix(smem.data(), smem.size(), offs, 3, false, out).empty());
  offs[3] = 4;  // not 16-byte aligned
  CHECK_FALSE(frag::simulate_ldmatrix(smem.data(), smem.size(), offs, 1, false, out).empty());
  offs[3] = 64;  // past the end
  CHECK_FALSE(frag::simulate_ldmatrix(smem.data(), smem.size(), offs, 1, false, out).empty());
  offs[3] = 24;
  offs[9] = 4;  // lane 9 is not read by .x1
  CHECK(frag::simulate_ldmatrix(smem.data(), smem.size(), offs, 1, false, out).empty());
}
