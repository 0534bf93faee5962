// kbit-fragcheck's CPU checks (see fragcheck.h). Every check reports the first failing lane /
// register / element it finds; nothing here trusts a layout it is checking.
#include "kbit/fragcheck.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "kbit/format.h"
#include "kbit/smem_layout.h"

namespace kbit::fragcheck {

namespace {

using frag::RowCol;
constexpr uint16_t kPoison16 = 0xFFFF;
constexpr uint32_t kPoison32 = 0xDEADBEEFu;


// Folds check `s` (one instance) into `acc` (a pattern over all instances).
void merge(Check& acc, const Check& s) {
  if (!s.ok) fail_check(acc, s.detail);
  acc.cases += s.cases;
  acc.measured = std::max(acc.measured, s.measured);
}

}  // namespace

const char* op_name(Op op) {
  switch (op) {
    case Op::ld_shared: return "ld.shared";
    case Op::st_shared: return "st.shared";
    case Op::cp_async: return "cp.async";
    case Op::ldmatrix: return "ldmatrix";
  }
  return "?";
}

int conflict_ways(const std::vector<Access>& instr, Op op, int* wavefronts) {
  std::map<int, std::vector<const Access*>> phases;
  for (const Access& a : instr) {
    const int lanes_per_phase = op == Op::ldmatrix ? 8 : std::min(32, 128 / std::max(1, a.bytes));
    phases[a.lane / lanes_per_phase].push_back(&a);
  }
  int worst = 0, wf = 0;
  for (const auto& [phase, accesses] : phases) {
    std::set<int64_t> words[32];
    for (const Access* a : accesses)
      for (int64_t w = a->byte_addr / 4; w <= (a->byte_addr + a->bytes - 1) / 4; ++w) words[w % 32].insert(w);
    int ways = 1;
    for (const auto& s : words) ways = std::max(ways, int(s.size()));
    worst = std::max(worst, ways);
    wf += ways;
  }
  if (wavefronts) *wavefronts = wf;
  return worst;
}

Check check_tile_bijection(std::string group, std::string name, int rows, int cols, int storage,
                           const TileOffset& offset) {
  Check c = make_check(std::move(group), std::move(name));
  std::vector<int> hits(size_t(storage), 0);
  for (int r = 0; r < rows; ++r)
    for (int col = 0; col < cols; ++col) {
      const int o = offset(r, col);
      ++c.cases;
      if (o < 0 || o >= storage) {
        fail_check(c, format_msg("(%d, %d) -> %d, outside [0, %d)", r, col, o, storage));
        continue;
      }
      if (hits[size_t(o)]++) fail_check(c, format_msg("(%d, %d) -> %d, a slot already used", r, col, o));
    }
  const long unused = std::count(hits.begin(), hits.end(), 0);
  if (c.ok && unused != long(storage) - long(rows) * cols)
    fail_check(c, format_msg("%ld slots unused, expected %ld", unused, long(storage) - long(rows) * cols));
  if (c.ok) c.detail = format_msg("%d elements -> %d slots, %ld padding", rows * cols, storage, unused);
  return c;
}

Check check_conflicts(std::string group, std::string name, const std::vector<std::vector<Access>>& instrs, Op op,
                      int declared) {
  Check c = make_check(std::move(group), std::move(name));
  c.declared = declared;
  c.measured = 0;
  long wf_total = 0;
  for (size_t i = 0; i < instrs.size(); ++i) {
    int wf = 0;
    const int ways = conflict_ways(instrs[i], op, &wf);
    wf_total += wf;
    if (ways > declared) {
      const Access& a0 = instrs[i].front();
      fail_check(c, format_msg("%s instruction %zu (lane %d at byte %lld, %d B) is %d-way, declared %d-way", op_name(op), i, a0.lane,
                  (long long)a0.byte_addr, a0.bytes, ways, declared));
    }
    c.measured = std::max(c.measured, ways);
    ++c.cases;
  }
  if (c.measured != declared) fail_check(c, format_msg("worst %d-way, declared %d-way", c.measured, declared));
  if (c.ok) c.detail = format_msg("%zu instr, %ld wavefronts", instrs.size(), wf_total);
  return c;
}

Check check_ldmatrix_fragment(std::string group, std::string name, int rows, int cols, int storage,
                              const TileOffset& store, const LaneOffset& addr, int num, bool trans,
                              const FragMap& expect, int* ways) {
  Check c = make_check(std::move(group), std::move(name));
  std::vector<uint16_t> smem(size_t(storage), kPoison16);
  for (int r = 0; r < rows; ++r)
    for (int col = 0; col < cols; ++col) {
      const int o = store(r, col);
      if (o < 0 || o >= storage) {
        fail_check(c, format_msg("store (%d, %d) -> %d, outside [0, %d)", r, col, o, storage));
        return c;
      }
      smem[size_t(o)] = uint16_t(r * cols + col);
    }
  int offs[frag::kWarpSize];
  for (int l = 0; l < frag::kWarpSize; ++l) offs[l] = addr(l);
  uint32_t out[frag::kWarpSize][4] = {};
  const std::string err = frag::simulate_ldmatrix(smem.data(), smem.size(), offs, num, trans, out);
  if (!err.empty()) {
    fail_check(c, err);
    return c;
  }
  if (ways) {
    std::vector<Access> instr;
    for (int l = 0; l < 8 * num; ++l) instr.push_back({l, int64_t(offs[l]) * 2, 16});
    *ways = conflict_ways(instr, Op::ldmatrix);
  }
  for (int l = 0; l < frag::kWarpSize; ++l)
    for (int reg = 0; reg < num; ++reg)
      for (int half = 0; half < 2; ++half) {
        ++c.cases;
        const uint16_t code = uint16_t(out[l][reg] >> (16 * half));
        const RowCol want = expect(l, reg, half);
        if (code == kPoison16) {
          fail_check(c, format_msg("lane %d reg %d half %d: unwritten slot, want (%d, %d)", l, reg, half, want.row, want.col));
          continue;
        }
        const RowCol got{code / cols, code % cols};
        if (!(got == want))
          fail_check(c, format_msg("lane %d reg %d half %d: got (%d, %d), want (%d, %d)", l, reg, half, got.row, got.col, want.row,
                      want.col));
      }
  return c;
}

Check check_map_bijection(std::string name, int regs, int halves, int rows, int cols, const FragMap& map) {
  Check c = make_check("model", std::move(name));
  std::vector<int> hits(size_t(rows * cols), 0);
  for (int l = 0; l < frag::kWarpSize; ++l)
    for (int reg = 0; reg < regs; ++reg)
      for (int half = 0; half < halves; ++half) {
        const RowCol rc = map(l, reg, half);
        ++c.cases;
        if (rc.row < 0 || rc.row >= rows || rc.col < 0 || rc.col >= cols) {
          fail_check(c, format_msg("lane %d reg %d half %d -> (%d, %d), outside %dx%d", l, reg, half, rc.row, rc.col, rows, cols));
          continue;
        }
        if (hits[size_t(rc.row * cols + rc.col)]++)
          fail_check(c, format_msg("lane %d reg %d half %d -> (%d, %d), already held by another lane/reg", l, reg, half, rc.row,
                      rc.col));
      }
  if (c.ok && c.cases != long(rows) * cols) fail_check(c, format_msg("%ld values for %d elements", c.cases, rows * cols));
  return c;
}

Check check_map_equal(std::string name, int regs, int halves, const FragMap& got, const FragMap& want) {
  Check c = make_check("model", std::move(name));
  for (int l = 0; l < frag::kWarpSize; ++l)
    for (int reg = 0; reg < regs; ++reg)
      for (int half = 0; half < halves; ++half) {
        ++c.cases;
        const RowCol g = got(l, reg, half), w = want(l, reg, half);
        if (!(g == w))
          fail_check(c, format_msg("lane %d reg %d half %d: model (%d, %d), PTX table (%d, %d)", l, reg, half, g.row, g.col, w.row,
                      w.col));
      }
  return c;
}

// ---- bit-plane tile ---------------------------------------------------------------------------

std::vector<std::vector<Access>> bp_frag_read_instrs(int TN, int k, const BpWordOffset& word_offset) {
  std::vector<std::vector<Access>> instrs;
  for (int n0 = 0; n0 < TN; n0 += 8)
    for (int h = 0; h < 2; ++h)
      for (int b = 0; b < k; ++b) {
        std::vector<Access> in;
        for (int t = 0; t < frag::kWarpSize; ++t) in.push_back({t, int64_t(word_offset(n0 + t / 4, h, b)) * 4, 4});
        instrs.push_back(std::move(in));
      }
  return instrs;
}

std::vector<std::vector<Access>> bp_block_read_instrs(int TN, int k, int bytes, const BpWordOffset& word_offset) {
  std::vector<std::vector<Access>> instrs;
  const int words_per_load = bytes / 4;
  for (int w0 = 0; w0 < 2 * TN; w0 += frag::kWarpSize)
    for (int i = 0; i < k / words_per_load; ++i) {
      std::vector<Access> in;
      for (int l = 0; l < frag::kWarpSize; ++l) {
        const smem::DeqBlock blk = smem::deq_thread_block(w0 + l);
        in.push_back({l, int64_t(word_offset(blk.n, blk.h, i * words_per_load)) * 4, bytes});
      }
      instrs.push_back(std::move(in));
    }
  return instrs;
}

namespace {

// A random [TN x 64] k-tile of indices and absmax, packed by format.h into a global tiled array of
// N = 2 TN rows and K = 128, as tile (kt = 1, n rows TN .. 2TN-1); everything else is noise.
struct GlobalTile {
  int TN, k;
  int64_t N = 0, K = 128, kt = 1, n_base = 0;
  std::vector<int> idx;          // [TN][64]
  std::vector<uint8_t> amax;     // [TN][2]
  std::vector<uint32_t> words;   // tiled, whole matrix
  std::vector<uint8_t> absmax;   // tiled, whole matrix
  int64_t word_base = 0, absmax_base = 0;

  GlobalTile(int TN_, int k_, uint32_t seed) : TN(TN_), k(k_), N(2 * TN_), n_base(TN_) {
    std::mt19937 rng(seed);
    idx.resize(size_t(TN) * 64);
    amax.resize(size_t(TN) * 2);
    for (int& v : idx) v = int(rng() % uint32_t(codebook_size(k)));
    for (uint8_t& v : amax) v = uint8_t(rng());
    words.resize(size_t(tiled_words(N, K, k)));
    absmax.resize(size_t(tiled_absmax_bytes(N, K)));
    for (uint32_t& w : words) w = rng();
    for (uint8_t& a : absmax) a = uint8_t(rng());
    for (int n = 0; n < TN; ++n)
      for (int h = 0; h < 2; ++h) {
        const int64_t kb = 2 * kt + h;
        for (int b = 0; b < k; ++b) {
          uint32_t w = 0;
          for (int j = 0; j < kBlockSize; ++j) w |= uint32_t((idx[size_t(n) * 64 + 32 * h + j] >> b) & 1) << j;
          words[size_t(tiled_word_offset(n_base + n, kb, b, N, k))] = w;
        }
        absmax[size_t(tiled_absmax_offset(n_base + n, kb, N))] = amax[size_t(n) * 2 + h];
      }
    word_base = tiled_word_offset(n_base, 2 * kt, 0, N, k);
    absmax_base = tiled_absmax_offset(n_base, 2 * kt, N);
  }
  // The cp.async model: global chunk c (4 words) -> storage words bp_cp_async_dst_word(c) + 0..3.
  std::vector<uint32_t> copy_planes(bool skewed, int slack, std::string* err) const {
    std::vector<uint32_t> s(size_t(smem::bp_tile_words(TN, k, skewed) + slack), kPoison32);
    if (word_base % 4 != 0) *err = format_msg("tile source word %lld is not 16-byte aligned", (long long)word_base);
    for (int c = 0; c < smem::bp_cp_async_chunks(TN, k); ++c) {
      const int dst = smem::bp_cp_async_dst_word(c, k, skewed);
      for (int e = 0; e < 4; ++e) s[size_t(dst + e)] = words[size_t(word_base + 4 * c + e)];
    }
    return s;
  }
  std::vector<uint8_t> copy_absmax() const {
    std::vector<uint8_t> s(size_t(smem::bp_absmax_bytes(TN)), 0xA5);
    for (int c = 0; c < smem::bp_absmax_bytes(TN) / 16; ++c)
      for (int e = 0; e < 16; ++e) s[size_t(16 * c + e)] = absmax[size_t(absmax_base + 16 * c + e)];
    return s;
  }
};

std::string bp_name(const char* what, int TN, int k, bool skewed) {
  return format_msg("%s TN=%d k=%d %s", what, TN, k, skewed ? "skewed" : "plain");
}

}  // namespace

Check check_bp_extraction(int TN, int k, bool skewed, const BpWordOffset& word_offset_in, const BpSourceMap& source_in) {
  const BpWordOffset word_offset =
      word_offset_in ? word_offset_in : [&](int n, int h, int b) { return smem::bp_word_offset(n, h, b, k, skewed); };
  const BpSourceMap source = source_in ? source_in : [](int lane, int reg, int half, int n0, int k0) {
    const smem::BpSource s = smem::bfrag_bp_source(lane, reg, half, n0, k0);
    return RowCol{s.n, s.h * kBlockSize + s.j};
  };
  Check c = make_check("bp_tile", bp_name("planes -> mma B index bits", TN, k, skewed));
  const GlobalTile g(TN, k, 1000u + uint32_t(TN * 10 + k) + (skewed ? 7u : 0u));
  std::string err;
  const std::vector<uint32_t> s = g.copy_planes(skewed, 0, &err);
  if (!err.empty()) fail_check(c, err);
  for (int n0 = 0; n0 < TN; n0 += 8)
    for (int k0 = 0; k0 < kTileK; k0 += 16)
      for (int l = 0; l < frag::kWarpSize; ++l)
        for (int reg = 0; reg < frag::kBRegs; ++reg)
          for (int half = 0; half < 2; ++half) {
            ++c.cases;
            const RowCol kn = frag::mma_b(l, reg, half);
            const int n = n0 + kn.col, kk = k0 + kn.row;
            const RowCol src = source(l, reg, half, n0, k0);
            int got = 0;
            bool bad = false;
            for (int b = 0; b < k && !bad; ++b) {
              const int o = word_offset(src.row, src.col / kBlockSize, b);
              if (o < 0 || size_t(o) >= s.size()) {
                fail_check(c, format_msg("n0=%d k0=%d lane %d reg %d half %d: plane word %d outside [0, %zu)", n0, k0, l, reg, half,
                            o, s.size()));
                bad = true;
                break;
              }
              got |= int((s[size_t(o)] >> (src.col % kBlockSize)) & 1u) << b;
            }
            const int want = g.idx[size_t(n) * 64 + kk];
            if (!bad && got != want)
              fail_check(c, format_msg("n0=%d k0=%d lane %d reg %d half %d: B(k=%d, n=%d) got index %d (from n=%d kk=%d), want %d",
                          n0, k0, l, reg, half, kk, n, got, src.row, src.col, want));
          }
  return c;
}

Check check_deq_chain(int TN, int k, bool skewed) {
  Check c = make_check("chain", bp_name("planes -> dequant store -> ldmatrix B", TN, k, skewed));
  const GlobalTile g(TN, k, 2000u + uint32_t(TN * 10 + k) + (skewed ? 7u : 0u));
  std::string err;
  const std::vector<uint32_t> s = g.copy_planes(skewed, 0, &err);
  const std::vector<uint8_t> sa = g.copy_absmax();
  if (!err.empty()) fail_check(c, err);
  // Dequant-in-fetch: thread t owns block deq_thread_block(t); it writes code = absmax * 32 + idx,
  // as four 8-half (st.shared.v4) chunks at b_tile_offset(n, 32h + 8q).
  std::vector<uint16_t> bt(size_t(smem::b_tile_halves(TN)), kPoison16);
  for (int t = 0; t < 2 * TN; ++t) {
    const smem::DeqBlock blk = smem::deq_thread_block(t);
    uint32_t planes[kMaxBits];
    for (int b = 0; b < k; ++b) planes[b] = s[size_t(smem::bp_word_offset(blk.n, blk.h, b, k, skewed))];
    const int a = sa[size_t(smem::bp_absmax_offset(blk.n, blk.h))];
    for (int q = 0; q < 4; ++q) {
      const int base = smem::b_tile_offset(blk.n, 32 * blk.h + 8 * q);
      if (base % 8 != 0) fail_check(c, format_msg("thread %d chunk %d: store at half %d is not 16-byte aligned", t, q, base));
      for (int e = 0; e < 8; ++e) {
        if (smem::b_tile_offset(blk.n, 32 * blk.h + 8 * q + e) != base + e)
          fail_check(c, format_msg("thread %d chunk %d: halves not contiguous", t, q));
        bt[size_t(base + e)] = uint16_t(a * 32 + unpack_index(planes, 8 * q + e, k));
      }
    }
  }
  for (int num : {2, 4})
    for (int n0 = 0; n0 < TN; n0 += 8 * num / 2)
      for (int k0 = 0; k0 < kTileK; k0 += 16) {
        int offs[frag::kWarpSize];
        for (int l = 0; l < frag::kWarpSize; ++l)
          offs[l] = num == 2 ? smem::b_ldmatrix_x2_offset(l, n0, k0) : smem::b_ldmatrix_x4_offset(l, n0, k0);
        uint32_t out[frag::kWarpSize][4] = {};
        const std::string e = frag::simulate_ldmatrix(bt.data(), bt.size(), offs, num, false, out);
        if (!e.empty()) {
          fail_check(c, e);
          continue;
        }
        for (int l = 0; l < frag::kWarpSize; ++l)
          for (int reg = 0; reg < num; ++reg)
            for (int half = 0; half < 2; ++half) {
              ++c.cases;
              const RowCol kn = frag::mma_b(l, reg & 1, half);
              const int n = n0 + kn.col + 8 * (reg >> 1), kk = k0 + kn.row;
              const int want = g.amax[size_t(n) * 2 + kk / 32] * 32 + g.idx[size_t(n) * 64 + kk];
              const int got = uint16_t(out[l][reg] >> (16 * half));
              if (got != want)
                fail_check(c, format_msg("x%d n0=%d k0=%d lane %d reg %d half %d: B(k=%d, n=%d) got absmax %d idx %d, want %d %d", num,
                            n0, k0, l, reg, half, kk, n, got / 32, got % 32, want / 32, want % 32));
            }
      }
  return c;
}

// ---- the suite ------------------------------------------------------------------------------------

namespace {

// The PTX ISA's own indexing (element i of the fragment = a_i / b_i / c_i, i = 2*reg + half for
// 16-bit operands), written independently of fragment.h.
RowCol ptx_a(int lane, int i) {
  const int g = lane >> 2, t = lane % 4;
  const int row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
  const int col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
  return {row, col};
}
RowCol ptx_b(int lane, int i) { return {(lane % 4) * 2 + (i & 1) + (i >= 2 ? 8 : 0), lane >> 2}; }
RowCol ptx_c(int lane, int i) { return {i < 2 ? lane >> 2 : (lane >> 2) + 8, (lane % 4) * 2 + (i & 1)}; }

void model_checks(std::vector<Check>& out) {
  using frag::Acc;
  out.push_back(check_map_bijection("mma A map covers 16x16 once", 4, 2, 16, 16, frag::mma_a));
  out.push_back(check_map_bijection("mma B map covers 16x8 (k, n) once", 2, 2, 16, 8, frag::mma_b));
  out.push_back(check_map_bijection("mma C f32 map covers 16x8 once", 4, 1, 16, 8,
                                    [](int l, int r, int h) { return frag::mma_c(l, r, h, Acc::f32); }));
  out.push_back(check_map_bijection("mma C f16 map covers 16x8 once", 2, 2, 16, 8,
                                    [](int l, int r, int h) { return frag::mma_c(l, r, h, Acc::f16); }));
  out.push_back(check_map_equal("mma A == PTX a_i table", 4, 2, frag::mma_a,
                                [](int l, int r, int h) { return ptx_a(l, 2 * r + h); }));
  out.push_back(check_map_equal("mma B == PTX b_i table", 2, 2, frag::mma_b,
                                [](int l, int r, int h) { return ptx_b(l, 2 * r + h); }));
  out.push_back(check_map_equal("mma C f32 == PTX c_i table", 4, 1,
                                [](int l, int r, int h) { return frag::mma_c(l, r, h, Acc::f32); },
                                [](int l, int r, int) { return ptx_c(l, r); }));
  out.push_back(check_map_equal("mma C f16 == PTX c_i table", 2, 2,
                                [](int l, int r, int h) { return frag::mma_c(l, r, h, Acc::f16); },
                                [](int l, int r, int h) { return ptx_c(l, 2 * r + h); }));
  for (bool trans : {false, true}) {
    const char* tn = trans ? " .trans" : "";
    out.push_back(check_map_bijection(format_msg("ldmatrix%s map covers 8x8 once", tn), 1, 2, 8, 8,
                                      [trans](int l, int, int h) { return frag::ldmatrix_elem(l, h, trans); }));
    // The PTX figure's ownership rule: element (row, col) of a matrix goes to lane 4*row + col/2,
    // half col%2 (transposed: lane 4*col + row/2, half row%2).
    out.push_back(check_map_equal(format_msg("ldmatrix%s == PTX ownership rule", tn), 1, 2,
                                  [trans](int l, int, int h) { return frag::ldmatrix_elem(l, h, trans); },
                                  [trans](int l, int, int h) {
                                    for (int r = 0; r < 8; ++r)
                                      for (int col = 0; col < 8; ++col) {
                                        const int lane = trans ? 4 * col + r / 2 : 4 * r + col / 2;
                                        const int half = trans ? r % 2 : col % 2;
                                        if (lane == l && half == h) return RowCol{r, col};
                                      }
                                    return RowCol{-1, -1};
                                  }));
    Check inv = make_check("model", format_msg("ldmatrix%s dst_lane/dst_half invert the map", tn));
    for (int r = 0; r < 8; ++r)
      for (int col = 0; col < 8; ++col) {
        ++inv.cases;
        const int l = frag::ldmatrix_dst_lane(r, col, trans), h = frag::ldmatrix_dst_half(r, col, trans);
        if (!(frag::ldmatrix_elem(l, h, trans) == RowCol{r, col}))
          fail_check(inv, format_msg("(%d, %d) -> lane %d half %d, which holds something else", r, col, l, h));
      }
    out.push_back(inv);
  }
}

}  // namespace

std::vector<Check> check_a_tile(int TM, const TileOffset& offset_in, const LdsmOffset& ldsm_in) {
  std::vector<Check> out;
  const TileOffset offset = offset_in ? offset_in : TileOffset(smem::a_tile_offset);
  const LdsmOffset ldsm = ldsm_in ? ldsm_in : LdsmOffset(smem::a_ldmatrix_x4_offset);
  const int S = smem::a_tile_halves(TM);
  out.push_back(check_tile_bijection("a_tile", format_msg("layout TM=%d", TM), TM, kTileK, S, offset));
  // cp.async fill: thread i copies 16-byte chunk i of the row-major global tile.
  Check whole = make_check("a_tile", format_msg("cp.async chunks whole, aligned TM=%d", TM));
  std::vector<std::vector<Access>> fill;
  for (int c0 = 0; c0 < TM * 8; c0 += 32) {
    std::vector<Access> in;
    for (int l = 0; l < 32 && c0 + l < TM * 8; ++l) {
      const int c = c0 + l, dst = smem::a_cp_async_chunk_offset(c);
      ++whole.cases;
      if (dst % 8) fail_check(whole, format_msg("chunk %d -> half %d, not 16-byte aligned", c, dst));
      for (int e = 0; e < 8; ++e)
        if (offset(c / 8, (c % 8) * 8 + e) != dst + e)
          fail_check(whole, format_msg("chunk %d element %d is not at dst + %d", c, e, e));
      in.push_back({l, int64_t(dst) * 2, 16});
    }
    fill.push_back(std::move(in));
  }
  out.push_back(whole);
  out.push_back(check_conflicts("a_tile", format_msg("cp.async 16B fill TM=%d", TM), fill, Op::cp_async, 1));
  Check fr = make_check("a_tile", format_msg("ldmatrix.x4 -> mma A fragment TM=%d", TM));
  fr.declared = 1;
  fr.measured = 0;
  for (int m0 = 0; m0 < TM; m0 += 16)
    for (int k0 = 0; k0 < kTileK; k0 += 16) {
      int ways = 0;
      const Check one = check_ldmatrix_fragment(
          "a_tile", "", TM, kTileK, S, offset, [&](int l) { return ldsm(l, m0, k0); }, 4, false,
          [&](int l, int r, int h) {
            const RowCol mk = frag::mma_a(l, r, h);
            return RowCol{m0 + mk.row, k0 + mk.col};
          },
          &ways);
      Check tagged = one;
      if (!one.ok) tagged.detail = format_msg("m0=%d k0=%d: %s", m0, k0, one.detail.c_str());
      tagged.measured = ways;
      merge(fr, tagged);
    }
  if (fr.measured != fr.declared) fail_check(fr, format_msg("ldmatrix phases %d-way, declared 1-way", fr.measured));
  out.push_back(fr);
  return out;
}

std::vector<Check> check_b_tile(int TN, const TileOffset& offset_in, const LdsmOffset& x2_in, const LdsmOffset& x4_in) {
  std::vector<Check> out;
  const TileOffset offset = offset_in ? offset_in : TileOffset(smem::b_tile_offset);
  const LdsmOffset x2 = x2_in ? x2_in : LdsmOffset(smem::b_ldmatrix_x2_offset);
  const LdsmOffset x4 = x4_in ? x4_in : LdsmOffset(smem::b_ldmatrix_x4_offset);
  const int S = smem::b_tile_halves(TN);
  out.push_back(check_tile_bijection("b_tile", format_msg("layout TN=%d", TN), TN, kTileK, S, offset));
  // Dequant store: 2 TN threads, thread t -> block (n, h), four st.shared.v4 (j = 0..3).
  Check cover = make_check("b_tile", format_msg("dequant store covers tile once TN=%d", TN));
  std::vector<int> hits(size_t(S), 0);
  std::vector<std::vector<Access>> stores;
  for (int w0 = 0; w0 < 2 * TN; w0 += 32)
    for (int j = 0; j < 4; ++j) {
      std::vector<Access> in;
      for (int l = 0; l < 32; ++l) {
        const smem::DeqBlock blk = smem::deq_thread_block(w0 + l);
        const int dst = offset(blk.n, 32 * blk.h + 8 * j);
        for (int e = 0; e < 8; ++e) {
          const int o = offset(blk.n, 32 * blk.h + 8 * j + e);
          ++cover.cases;
          if (o != dst + e) fail_check(cover, format_msg("thread %d chunk %d: element %d not contiguous", w0 + l, j, e));
          if (o < 0 || o >= S) fail_check(cover, format_msg("thread %d chunk %d: offset %d out of bounds", w0 + l, j, o));
          else if (hits[size_t(o)]++) fail_check(cover, format_msg("thread %d chunk %d: offset %d written twice", w0 + l, j, o));
        }
        in.push_back({l, int64_t(dst) * 2, 16});
      }
      stores.push_back(std::move(in));
    }
  if (std::count(hits.begin(), hits.end(), 0) != 0) fail_check(cover, "some tile elements are never written");
  out.push_back(cover);
  out.push_back(check_conflicts("b_tile", format_msg("dequant st.shared.v4 TN=%d", TN), stores, Op::st_shared, 1));
  for (int num : {2, 4}) {
    Check fr = make_check("b_tile", format_msg("ldmatrix.x%d -> mma B fragment TN=%d", num, TN));
    fr.declared = 1;
    fr.measured = 0;
    for (int n0 = 0; n0 < TN; n0 += 4 * num)
      for (int k0 = 0; k0 < kTileK; k0 += 16) {
        int ways = 0;
        Check one = check_ldmatrix_fragment(
            "b_tile", "", TN, kTileK, S, offset, [&](int l) { return num == 2 ? x2(l, n0, k0) : x4(l, n0, k0); },
            num, false,
            [&](int l, int r, int h) {
              const RowCol kn = frag::mma_b(l, r & 1, h);
              return RowCol{n0 + kn.col + 8 * (r >> 1), k0 + kn.row};
            },
            &ways);
        if (!one.ok) one.detail = format_msg("n0=%d k0=%d: %s", n0, k0, one.detail.c_str());
        one.measured = ways;
        merge(fr, one);
      }
    if (fr.measured != fr.declared) fail_check(fr, format_msg("ldmatrix phases %d-way, declared 1-way", fr.measured));
    out.push_back(fr);
  }
  return out;
}

std::vector<Check> check_bp_tile(int TN, int k, bool skewed, const BpWordOffset& wo_in) {
  std::vector<Check> out;
  const int S = smem::bp_tile_words(TN, k, skewed);
  const BpWordOffset wo =
      wo_in ? wo_in : BpWordOffset([=](int n, int h, int b) { return smem::bp_word_offset(n, h, b, k, skewed); });
  out.push_back(check_tile_bijection("bp_tile", bp_name("layout", TN, k, skewed), TN, 2 * k, S,
                                     [&](int n, int hb) { return wo(n, hb / k, hb % k); }));
  Check whole = make_check("bp_tile", bp_name("cp.async chunks whole, aligned", TN, k, skewed));
  std::vector<std::vector<Access>> fill;
  const int chunks = smem::bp_cp_async_chunks(TN, k);
  if (chunks * 4 != TN * 2 * k) fail_check(whole, "chunks do not tile the k-tile");
  for (int c0 = 0; c0 < chunks; c0 += 32) {
    std::vector<Access> in;
    for (int l = 0; l < 32 && c0 + l < chunks; ++l) {
      const int c = c0 + l, dst = smem::bp_cp_async_dst_word(c, k, skewed);
      ++whole.cases;
      if (dst % 4) fail_check(whole, format_msg("chunk %d -> word %d, not 16-byte aligned", c, dst));
      for (int e = 0; e < 4; ++e) {
        const int w = 4 * c + e, n = w / (2 * k), h = (w % (2 * k)) / k, b = w % k;
        if (wo(n, h, b) != dst + e) fail_check(whole, format_msg("chunk %d word %d: layout puts (n=%d h=%d b=%d) elsewhere", c, e, n, h, b));
      }
      in.push_back({l, int64_t(dst) * 4, 16});
    }
    fill.push_back(std::move(in));
  }
  out.push_back(whole);
  out.push_back(check_conflicts("bp_tile", bp_name("cp.async 16B fill", TN, k, skewed), fill, Op::cp_async, 1));
  // The 4-byte fallback (tail or unaligned tiles): thread i copies global word i to
  // bp_storage_word(i).
  std::vector<std::vector<Access>> fill4;
  for (int w0 = 0; w0 < TN * 2 * k; w0 += 32) {
    std::vector<Access> in;
    for (int l = 0; l < 32 && w0 + l < TN * 2 * k; ++l)
      in.push_back({l, int64_t(smem::bp_storage_word(w0 + l, k, skewed)) * 4, 4});
    fill4.push_back(std::move(in));
  }
  out.push_back(check_conflicts("bp_tile", bp_name("cp.async 4B fill (tail tiles)", TN, k, skewed), fill4, Op::cp_async, 1));
  out.push_back(check_conflicts("bp_tile", bp_name("MMA-loop ld.shared.b32 (lane t: row n0+t/4)", TN, k, skewed),
                                bp_frag_read_instrs(TN, k, wo), Op::ld_shared, smem::bp_frag_read_ways(k, skewed)));
  out.push_back(check_conflicts("bp_tile", bp_name("dequant ld.shared.b32 (thread t: block t)", TN, k, skewed),
                                bp_block_read_instrs(TN, k, 4, wo), Op::ld_shared, smem::bp_block_read_ways(k, 4)));
  const int vb = smem::bp_block_read_vector_bytes(k);
  if (vb > 4) {
    Check al = make_check("bp_tile", bp_name(format_msg("dequant %d-byte vector loads aligned", vb).c_str(), TN, k, skewed));
    for (int n = 0; n < TN; ++n)
      for (int h = 0; h < 2; ++h)
        for (int b0 = 0; b0 < k; b0 += vb / 4) {
          ++al.cases;
          if ((wo(n, h, b0) * 4) % vb) fail_check(al, format_msg("block (%d, %d) plane %d at word %d", n, h, b0, wo(n, h, b0)));
          for (int e = 1; e < vb / 4; ++e)
            if (wo(n, h, b0 + e) != wo(n, h, b0) + e) fail_check(al, format_msg("block (%d, %d) planes not contiguous", n, h));
        }
    out.push_back(al);
    out.push_back(check_conflicts("bp_tile", bp_name(format_msg("dequant ld.shared.v%d (thread t: block t)", vb / 4).c_str(), TN, k, skewed),
                                  bp_block_read_instrs(TN, k, vb, wo), Op::ld_shared, smem::bp_block_read_ways(k, vb)));
  }
  out.push_back(check_bp_extraction(TN, k, skewed, wo));
  if (!wo_in) out.push_back(check_deq_chain(TN, k, skewed));
  return out;
}

namespace {

void absmax_checks(std::vector<Check>& out, int TN) {
  const int S = smem::bp_absmax_bytes(TN);
  out.push_back(check_tile_bijection("absmax", format_msg("layout TN=%d", TN), TN, 2, S, smem::bp_absmax_offset));
  std::vector<std::vector<Access>> fill(1);
  for (int c = 0; c < S / 16; ++c) fill[0].push_back({c, int64_t(16) * c, 16});
  out.push_back(check_conflicts("absmax", format_msg("cp.async 16B fill TN=%d", TN), fill, Op::cp_async, 1));
  std::vector<std::vector<Access>> fill4;
  for (int w0 = 0; w0 < S / 4; w0 += 32) {
    std::vector<Access> in;
    for (int l = 0; l < 32 && w0 + l < S / 4; ++l) in.push_back({l, int64_t(4) * (w0 + l), 4});
    fill4.push_back(std::move(in));
  }
  out.push_back(check_conflicts("absmax", format_msg("cp.async 4B fill TN=%d", TN), fill4, Op::cp_async, 1));
  std::vector<std::vector<Access>> fr, br;
  for (int n0 = 0; n0 < TN; n0 += 8)
    for (int h = 0; h < 2; ++h) {
      std::vector<Access> in;
      for (int t = 0; t < 32; ++t) in.push_back({t, smem::bp_absmax_offset(n0 + t / 4, h), 1});
      fr.push_back(std::move(in));
    }
  for (int w0 = 0; w0 < 2 * TN; w0 += 32) {
    std::vector<Access> in;
    for (int l = 0; l < 32; ++l) {
      const smem::DeqBlock blk = smem::deq_thread_block(w0 + l);
      in.push_back({l, smem::bp_absmax_offset(blk.n, blk.h), 1});
    }
    br.push_back(std::move(in));
  }
  out.push_back(check_conflicts("absmax", format_msg("MMA-loop ld.shared.u8 TN=%d", TN), fr, Op::ld_shared, 1));
  out.push_back(check_conflicts("absmax", format_msg("dequant ld.shared.u8 TN=%d", TN), br, Op::ld_shared, 1));
}

}  // namespace

std::vector<Check> run_cpu_checks() {
  std::vector<Check> out;
  model_checks(out);
  auto add = [&](std::vector<Check> v) { out.insert(out.end(), v.begin(), v.end()); };
  for (int TM : {16, 32, 64}) add(check_a_tile(TM));
  for (int TN : {64, 128}) add(check_b_tile(TN));
  for (int TN : {64, 128})
    for (int k = kMinBits; k <= kMaxBits; ++k)
      for (bool skewed : {false, true}) add(check_bp_tile(TN, k, skewed));
  for (int TN : {64, 128}) absmax_checks(out, TN);
  return out;
}

Check make_check(std::string group, std::string name) {
  Check c;
  c.group = std::move(group);
  c.name = std::move(name);
  c.ok = true;
  return c;
}
void fail_check(Check& c, std::string why) {
  if (c.ok) c.detail = std::move(why);
  c.ok = false;
}

}  // namespace kbit::fragcheck
