#include "cases.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kbit/error.h"
#include "kbit/format.h"

namespace kbit::verify {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

int64_t parse_int(const std::string& s, const std::string& prefix, const std::string& name) {
  int64_t v = 0;
  const char* b = s.data() + prefix.size();
  const char* e = s.data() + s.size();
  if (s.compare(0, prefix.size(), prefix) != 0 || b == e || std::from_chars(b, e, v).ptr != e)
    throw Error("case name \"" + name + "\": expected " + prefix + "<integer>, got \"" + s + "\"");
  return v;
}

}  // namespace

const char* family_name(Family f) {
  switch (f) {
    case Family::dense: return "dense";
    case Family::moe: return "moe";
    case Family::dequant: return "dequant";
  }
  return "?";
}

const std::vector<std::string>& family_kernels(Family f) {
  static const std::vector<std::string> dense = {"v0", "gemv", "tcv", "tcw", "mma", "dequant_cublas", "automatic"};
  static const std::vector<std::string> moe = {"v0", "grouped_gemv", "grouped_tcv", "grouped_mma", "grouped_tcw", "automatic"};
  static const std::vector<std::string> deq = {"v0", "fast"};
  return f == Family::dense ? dense : f == Family::moe ? moe : deq;
}

std::string CaseSpec::dims() const {
  std::string d = "N" + std::to_string(N) + ".K" + std::to_string(K);
  if (family != Family::dense) d = "E" + std::to_string(E) + "." + d;
  if (family == Family::moe) d += ".top" + std::to_string(top_k) + "." + routing_name(routing);
  return d;
}

std::string CaseSpec::group() const {
  std::string g = std::string(family_name(family)) + "/" + label + "/" + dims();
  if (family == Family::dense) g += "/M" + std::to_string(M);
  if (family == Family::moe) g += "/T" + std::to_string(M);
  return g + "/k" + std::to_string(bits) + "/" + precision_name(dtype);
}

std::string CaseSpec::name() const { return group() + "/" + kernel; }

std::string CaseSpec::weight_key() const {
  return "w/" + label + "/E" + std::to_string(E) + ".N" + std::to_string(N) + ".K" + std::to_string(K) + "/k" +
         std::to_string(bits);
}

CaseSpec parse_case_name(const std::string& name) {
  const auto parts = split(name, '/');
  CaseSpec c;
  auto bad = [&](const std::string& why) { throw Error("case name \"" + name + "\": " + why); };
  if (parts.empty()) bad("empty");
  if (parts[0] == "dense") c.family = Family::dense;
  else if (parts[0] == "moe") c.family = Family::moe;
  else if (parts[0] == "dequant") c.family = Family::dequant;
  else bad("family must be dense, moe or dequant");
  const size_t want = c.family == Family::dequant ? 6 : 7;
  if (parts.size() != want) bad("expected " + std::to_string(want) + " '/'-separated parts");
  c.label = parts[1];
  if (c.label.empty()) bad("empty shape label");
  const auto d = split(parts[2], '.');
  size_t i = 0;
  if (c.family != Family::dense) {
    if (d.size() < 3) bad("dims must be E<E>.N<N>.K<K>...");
    c.E = parse_int(d[i++], "E", name);
  }
  if (d.size() < i + 2) bad("dims must hold N<N>.K<K>");
  c.N = parse_int(d[i++], "N", name);
  c.K = parse_int(d[i++], "K", name);
  if (c.family == Family::moe) {
    if (d.size() != i + 2) bad("MoE dims must be E<E>.N<N>.K<K>.top<t>.<routing>");
    c.top_k = static_cast<int>(parse_int(d[i++], "top", name));
    c.routing = parse_routing(d[i++]);
  }
  if (i != d.size()) bad("unexpected dims part \"" + d[i] + "\"");
  size_t p = 3;
  if (c.family == Family::dense) c.M = parse_int(parts[p++], "M", name);
  if (c.family == Family::moe) c.M = parse_int(parts[p++], "T", name);
  c.bits = static_cast<int>(parse_int(parts[p++], "k", name));
  c.dtype = parse_precision(parts[p++].c_str());
  c.kernel = parts[p++];
  const auto& ks = family_kernels(c.family);
  if (std::find(ks.begin(), ks.end(), c.kernel) == ks.end()) bad("unknown kernel \"" + c.kernel + "\"");
  if (!valid_bits(c.bits)) bad("k must be 2..5");
  if (c.family != Family::dequant && c.dtype == Precision::f32) bad("GEMM activations are f16 or bf16");
  if (c.M < 0) bad("M must be >= 0");
  GemmShape s;
  s.model = "case";
  s.name = c.label;
  s.N = c.N;
  s.K = c.K;
  s.E = c.E;
  s.moe = c.family == Family::moe;
  s.top_k = s.moe ? c.top_k : 0;
  if (c.family == Family::dequant) s.moe = c.E > 1, s.top_k = s.moe ? 1 : 0;
  validate_shape(s);
  if (c.name() != name) bad("does not round-trip (non-canonical numbers?): \"" + c.name() + "\"");
  return c;
}

std::vector<int64_t> parse_m_list(const std::string& text) {
  std::vector<int64_t> out;
  size_t at = 0;
  while (true) {  // every item between commas, the empty ones too (a leading, doubled or trailing comma)
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    int64_t v = -1;
    const auto r = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || r.ec != std::errc() || r.ptr != item.data() + item.size() || v < 0 || v > (int64_t{1} << 20))
      throw Error("--m '" + text + "': \"" + item + "\" is not an M in 0..1048576 (expected e.g. 160,288,384)");
    if (std::find(out.begin(), out.end(), v) != out.end())
      throw Error("--m '" + text + "': " + item + " is listed twice (each M is one set of cases)");
    out.push_back(v);
    if (comma == text.size()) break;
    at = comma + 1;
  }
  return out;
}

std::vector<int64_t> m_list(bool full) {
  std::vector<int64_t> m = {0, 1, 2, 3, 4, 8, 16, 33, 64, 128};
  if (full) {
    for (int64_t x : {5, 7, 32, 65, 256, 512, 1024}) m.push_back(x);
    std::sort(m.begin(), m.end());
  }
  return m;
}

std::vector<int64_t> tokens_list(bool full) {
  std::vector<int64_t> t = {1, 2, 3, 4, 8, 16, 33, 64, 128};
  if (full) {
    for (int64_t x : {5, 7, 32, 65, 256, 512, 1024}) t.push_back(x);
    std::sort(t.begin(), t.end());
  }
  return t;
}

const std::vector<Combo>& combos() {
  static const std::vector<Combo> c = {{4, Precision::f16}, {2, Precision::bf16}, {3, Precision::f16}, {5, Precision::bf16},
                                       {2, Precision::f16}, {4, Precision::bf16}, {5, Precision::f16}, {3, Precision::bf16}};
  return c;
}

void validate_kernel_tokens(const std::vector<std::string>& tokens) {
  for (const auto& t : tokens) {
    bool known = false;
    for (Family f : {Family::dense, Family::moe, Family::dequant}) {
      if (t == family_name(f)) known = true;
      for (const auto& k : family_kernels(f))
        if (t == k || t == std::string(family_name(f)) + "." + k) known = true;
    }
    if (!known)
      throw Error("--kernels: unknown \"" + t +
                  "\" (use a family dense|moe|dequant, a kernel name, or family.kernel such as moe.v0)");
  }
}

bool kernel_selected(const std::vector<std::string>& tokens, Family f, const std::string& kernel) {
  if (tokens.empty()) return true;
  for (const auto& t : tokens)
    if (t == family_name(f) || t == kernel || t == std::string(family_name(f)) + "." + kernel) return true;
  return false;
}

std::string skip_reason(const CaseSpec& c, bool no_cublas) {
  if (no_cublas && c.family == Family::dense && c.kernel == "dequant_cublas")
    return "--no-cublas: dequant_cublas runs cublasGemmEx";
  return "";
}

std::vector<CaseSpec> select_cases(std::vector<CaseSpec> cases, const std::string& shard, const std::string& range) {
  if (!shard.empty()) {
    size_t index = 0, count = 0;
    char slash = 0;
    std::istringstream in(shard);
    if (!(in >> index >> slash >> count) || slash != '/' || !in.eof() || count == 0 || index >= count)
      throw Error("--shard '" + shard + "': expected I/N with 0 <= I < N, e.g. 0/4");
    std::vector<CaseSpec> mine;
    for (size_t i = index; i < cases.size(); i += count) mine.push_back(cases[i]);
    cases = std::move(mine);
  }
  if (!range.empty()) {
    const size_t colon = range.find(':');
    auto number = [&](const std::string& t, size_t fallback, size_t& v) {
      if (t.empty()) return v = fallback, true;
      const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
      return r.ec == std::errc() && r.ptr == t.data() + t.size();
    };
    size_t a = 0, b = 0;
    if (colon == std::string::npos || !number(range.substr(0, colon), 0, a) ||
        !number(range.substr(colon + 1), SIZE_MAX, b) || a > b)
      throw Error("--range '" + range + "': expected A:B with 0 <= A <= B (positions after --shard), e.g. 40:80 or 40:");
    a = std::min(a, cases.size());
    b = std::min(b, cases.size());
    cases = std::vector<CaseSpec>(cases.begin() + std::ptrdiff_t(a), cases.begin() + std::ptrdiff_t(b));
  }
  return cases;
}

std::vector<CaseSpec> plan_cases(const Catalogue& cat, const PlanOptions& opt) {
  validate_kernel_tokens(opt.kernels);
  std::vector<GemmShape> shapes;
  for (const GemmShape& s : cat.all_shapes())
    if (opt.full || s.block) shapes.push_back(s);
  const auto rnd = random_shapes(cat.random, opt.seed, opt.full ? cat.random.count_full : cat.random.count_quick);
  shapes.insert(shapes.end(), rnd.begin(), rnd.end());

  std::optional<std::regex> re;
  if (!opt.filter.empty()) {
    try {
      re.emplace(opt.filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw Error("--filter \"" + opt.filter + "\": not a valid regex (" + e.what() + ")");
    }
  }
  std::vector<CaseSpec> out;
  auto add = [&](const CaseSpec& base) {
    for (const auto& k : family_kernels(base.family)) {
      if (!kernel_selected(opt.kernels, base.family, k)) continue;
      CaseSpec c = base;
      c.kernel = k;
      if (re && !std::regex_search(c.name(), *re)) continue;
      out.push_back(c);
    }
  };
  const auto& cmb = combos();
  const int nc = static_cast<int>(cmb.size());
  for (size_t si = 0; si < shapes.size(); ++si) {
    const GemmShape& s = shapes[si];
    // dequantize cases first (the cuBLAS reference of the GEMM cases uses the GPU dequantize)
    // Quick: one k per shape (rotating), shapes up to 2^28 weights. Full: every shape, every k
    // up to 2^26 weights, one k per shape above (the CPU dequantize reference of a 470M-weight
    // matrix at every k and output type would take most of the full sweep's time).
    const bool deq_here = opt.full || s.weights() <= 0x1p28;
    const bool deq_all_k = opt.full && s.weights() <= 0x1p26;
    for (int bits = kMinBits; bits <= kMaxBits; ++bits) {
      if (deq_here && (deq_all_k || bits == kMinBits + int(si % 4)))
        for (Precision p : {Precision::f16, Precision::bf16, Precision::f32}) {
          CaseSpec c;
          c.family = Family::dequant;
          c.label = s.label();
          c.E = s.E, c.N = s.N, c.K = s.K, c.bits = bits, c.dtype = p;
          add(c);
        }
      for (Precision p : {Precision::f16, Precision::bf16}) {
        const int ci = static_cast<int>(std::find_if(cmb.begin(), cmb.end(), [&](const Combo& x) {
                                          return x.bits == bits && x.dtype == p;
                                        }) - cmb.begin());
        if (!s.moe) {
          const auto ms = opt.m.empty() ? m_list(opt.full) : opt.m;
          for (size_t mi = 0; mi < ms.size(); ++mi) {
            const bool rotate_pick = int((si + mi) % size_t(nc)) == ci;
            const bool all_combos = opt.full && (ms[mi] == 1 || ms[mi] == 4);  // decode: every (k, dtype)
            if (!(all_combos || rotate_pick)) continue;
            CaseSpec c;
            c.family = Family::dense;
            c.label = s.label();
            c.N = s.N, c.K = s.K, c.M = ms[mi], c.bits = bits, c.dtype = p;
            add(c);
          }
        } else {
          const auto ts = opt.m.empty() ? tokens_list(opt.full) : opt.m;
          for (size_t ri = 0; ri < s.routings.size(); ++ri)
            for (size_t ti = 0; ti < ts.size(); ++ti) {
              const bool rotate_pick = int((si + ri + ti) % size_t(nc)) == ci;
              const bool all_combos = opt.full && ts[ti] == 1;  // decode routing: every (k, dtype)
              if (!(all_combos || rotate_pick)) continue;
              CaseSpec c;
              c.family = Family::moe;
              c.label = s.label();
              c.E = s.E, c.N = s.N, c.K = s.K, c.top_k = s.top_k, c.routing = s.routings[ri];
              c.M = ts[ti], c.bits = bits, c.dtype = p;
              add(c);
            }
        }
      }
    }
  }
  return out;
}

nlohmann::json outcome_json(const CaseOutcome& o, uint64_t master_seed) {
  const CaseSpec& c = o.spec;
  nlohmann::json j = {{"case", c.name()},
                      {"status", o.status},
                      {"master_seed", master_seed},
                      {"input_seed", c.input_seed(master_seed)},
                      {"weight_seed", c.weight_seed(master_seed)},
                      {"spec",
                       {{"family", family_name(c.family)}, {"label", c.label}, {"E", c.E}, {"N", c.N}, {"K", c.K},
                        {"top_k", c.top_k}, {"routing", routing_name(c.routing)}, {"M", c.M}, {"bits", c.bits},
                        {"dtype", precision_name(c.dtype)}, {"kernel", c.kernel}}},
                      {"ms", o.ms}};
  if (!o.message.empty()) j["message"] = o.message;
  if (!o.chosen.empty()) j["chosen"] = o.chosen;
  auto& checks = j["checks"] = nlohmann::json::array();
  for (const auto& ch : o.checks) checks.push_back(to_json(ch));
  j["rerun"] = "kbit-verify --case '" + c.name() + "' --seed " + std::to_string(master_seed);
  return j;
}

std::string repro_filename(const CaseSpec& c) {
  std::string s = c.name();
  std::string out;
  for (char ch : s) out += ch == '/' ? std::string("__") : std::string(1, ch);
  return out + ".json";
}

Repro read_repro(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("repro file " + path + ": cannot open");
  nlohmann::json j;
  try {
    in >> j;
    Repro r;
    r.master_seed = j.at("master_seed").get<uint64_t>();
    r.spec = parse_case_name(j.at("case").get<std::string>());
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error("repro file " + path + ": " + e.what() + " (needs \"case\" and \"master_seed\")");
  }
}

}  // namespace kbit::verify
