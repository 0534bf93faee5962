#include "catalogue.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kbit/error.h"
#include "kbit/format.h"
#include "kbit/rng.h"

namespace kbit::verify {
namespace {

using nlohmann::json;

constexpr Routing kAllRoutings[] = {Routing::realistic, Routing::uniform,  Routing::empty_edges,
                                    Routing::one_first, Routing::one_last, Routing::all_empty};

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw Error("shapes catalogue " + where + ": " + what);
}

const json& field(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) fail(where, std::string("missing field \"") + key + "\"");
  return j.at(key);
}

int64_t int_field(const json& j, const char* key, const std::string& where) {
  const json& v = field(j, key, where);
  if (!v.is_number_integer()) fail(where, std::string("field \"") + key + "\" must be an integer");
  return v.get<int64_t>();
}

std::string string_field(const json& j, const char* key, const std::string& where) {
  const json& v = field(j, key, where);
  if (!v.is_string()) fail(where, std::string("field \"") + key + "\" must be a string");
  return v.get<std::string>();
}

std::pair<int64_t, int64_t> range_field(const json& j, const char* key, const std::string& where) {
  const json& v = field(j, key, where);
  if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer() ||
      v[0].get<int64_t>() > v[1].get<int64_t>())
    fail(where, std::string("field \"") + key + "\" must be [lo, hi] integers with lo <= hi");
  return {v[0].get<int64_t>(), v[1].get<int64_t>()};
}

GemmShape parse_gemm(const json& j, const std::string& model, const std::string& where_in) {
  GemmShape s;
  s.model = model;
  s.name = string_field(j, "name", where_in);
  const std::string where = where_in + " \"" + s.name + "\"";
  s.N = int_field(j, "N", where);
  s.K = int_field(j, "K", where);
  if (j.contains("experts")) {
    s.moe = true;
    s.E = int_field(j, "experts", where);
    s.top_k = static_cast<int>(int_field(j, "top_k", where));
  } else if (j.contains("top_k")) {
    fail(where, "top_k without experts");
  }
  if (j.contains("block")) s.block = j.at("block").get<bool>();
  if (j.contains("fused")) s.fused = j.at("fused").get<std::vector<std::string>>();
  if (j.contains("note")) s.note = j.at("note").get<std::string>();
  if (j.contains("why")) s.note = j.at("why").get<std::string>();
  if (j.contains("routings")) {
    if (!s.moe) fail(where, "routings on a dense shape");
    for (const auto& r : j.at("routings")) s.routings.push_back(parse_routing(r.get<std::string>()));
  } else if (s.moe) {
    s.routings = {Routing::realistic};
  }
  try {
    validate_shape(s);
  } catch (const Error& e) {
    fail(where, e.what());
  }
  return s;
}

}  // namespace

const char* routing_name(Routing r) {
  switch (r) {
    case Routing::realistic: return "realistic";
    case Routing::uniform: return "uniform";
    case Routing::empty_edges: return "empty_edges";
    case Routing::one_first: return "one_first";
    case Routing::one_last: return "one_last";
    case Routing::all_empty: return "all_empty";
  }
  return "?";
}

Routing parse_routing(const std::string& s) {
  for (Routing r : kAllRoutings)
    if (s == routing_name(r)) return r;
  std::string names;
  for (Routing r : kAllRoutings) names += std::string(names.empty() ? "" : ", ") + routing_name(r);
  throw Error("unknown routing \"" + s + "\" (valid: " + names + ")");
}

void validate_shape(const GemmShape& s) {
  const std::string what = "shape " + s.label() + ": ";
  if (s.N < 1) throw Error(what + "N = " + std::to_string(s.N) + ", needs N >= 1");
  if (s.K < kBlockSize || s.K % kBlockSize != 0)
    throw Error(what + "K = " + std::to_string(s.K) + ", needs K >= 32 and K % 32 == 0");
  if (s.E < 1) throw Error(what + "E = " + std::to_string(s.E) + ", needs E >= 1");
  if (!s.moe && s.E != 1) throw Error(what + "a dense shape has E = 1");
  if (s.moe && (s.top_k < 1 || s.top_k > s.E))
    throw Error(what + "top_k = " + std::to_string(s.top_k) + ", needs 1 <= top_k <= E = " +
                std::to_string(s.E));
  for (char c : s.label())
    if (c == '/' || c == ' ' || c == ',' || c == ';')
      throw Error(what + "names may not contain '/', ' ', ',' or ';' (they become case names)");
}

std::vector<GemmShape> Catalogue::all_shapes() const {
  std::vector<GemmShape> out;
  for (const Model& m : models) out.insert(out.end(), m.gemms.begin(), m.gemms.end());
  out.insert(out.end(), adversarial.begin(), adversarial.end());
  return out;
}

const Model* Catalogue::find_model(const std::string& name) const {
  for (const Model& m : models)
    if (m.name == name) return &m;
  return nullptr;
}

Catalogue parse_catalogue(const std::string& json_text, const std::string& origin) {
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::exception& e) {
    fail(origin, std::string("not valid JSON: ") + e.what());
  }
  Catalogue c;
  c.origin = origin;
  try {
    if (string_field(root, "schema", origin) != "kbit-shapes/1")
      fail(origin, "schema must be \"kbit-shapes/1\"");
    for (const json& jm : field(root, "models", origin)) {
      Model m;
      m.name = string_field(jm, "name", origin + " model");
      const std::string where = origin + " model \"" + m.name + "\"";
      m.hidden = int_field(jm, "hidden", where);
      if (jm.contains("source")) m.source = jm.at("source").get<std::string>();
      for (const json& jg : field(jm, "gemms", where)) m.gemms.push_back(parse_gemm(jg, m.name, where + " gemm"));
      if (m.gemms.empty()) fail(where, "no gemms");
      c.models.push_back(std::move(m));
    }
    if (root.contains("adversarial"))
      for (const json& ja : root.at("adversarial"))
        c.adversarial.push_back(parse_gemm(ja, "adversarial", origin + " adversarial"));
    if (root.contains("random")) {
      const json& jr = root.at("random");
      const std::string where = origin + " random";
      RandomRecipe& r = c.random;
      r.count_quick = static_cast<int>(int_field(jr, "count_quick", where));
      r.count_full = static_cast<int>(int_field(jr, "count_full", where));
      std::tie(r.n_min, r.n_max) = range_field(jr, "N", where);
      std::tie(r.kb_min, r.kb_max) = range_field(jr, "K_blocks", where);
      std::tie(r.e_min, r.e_max) = range_field(jr, "experts", where);
      const auto tk = range_field(jr, "top_k", where);
      r.top_k_min = static_cast<int>(tk.first);
      r.top_k_max = static_cast<int>(tk.second);
      r.moe_fraction = field(jr, "moe_fraction", where).get<double>();
      if (r.n_min < 1 || r.kb_min < 1 || r.e_min < 1 || r.top_k_min < 1 || r.count_quick < 0 ||
          r.count_full < 0 || r.moe_fraction < 0 || r.moe_fraction > 1)
        fail(where, "ranges must be positive and moe_fraction in [0, 1]");
    }
  } catch (const json::exception& e) {
    fail(origin, std::string("wrong JSON type: ") + e.what());
  }
  return c;
}

Catalogue load_catalogue(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("shapes catalogue " + path + ": cannot open (pass --shapes FILE)");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_catalogue(ss.str(), path);
}

uint64_t derive_seed(uint64_t master, const std::string& key) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : key) h = (h ^ c) * 0x100000001b3ull;
  Rng mix(master ^ (h * 0x9e3779b97f4a7c15ull));
  mix.next();
  return mix.next();
}

std::vector<GemmShape> random_shapes(const RandomRecipe& r, uint64_t seed, int count) {
  // log-uniform integer in [lo, hi]
  auto log_uniform = [](Rng& rng, int64_t lo, int64_t hi) {
    const double x = std::exp(std::log(double(lo)) + rng.uniform() * (std::log(double(hi) + 1) - std::log(double(lo))));
    return std::clamp<int64_t>(static_cast<int64_t>(x), lo, hi);
  };
  std::vector<GemmShape> out;
  for (int i = 0; i < count; ++i) {
    Rng rng(derive_seed(seed, "random." + std::to_string(i)));
    GemmShape s;
    s.model = "random";
    s.name = "r" + std::to_string(i);
    s.N = log_uniform(rng, r.n_min, r.n_max);
    s.K = kBlockSize * log_uniform(rng, r.kb_min, r.kb_max);
    if (rng.uniform() < r.moe_fraction) {
      s.moe = true;
      s.E = log_uniform(rng, std::max<int64_t>(r.e_min, 1), r.e_max);
      const int hi = static_cast<int>(std::min<int64_t>(r.top_k_max, s.E));
      const int lo = std::min(r.top_k_min, hi);
      s.top_k = static_cast<int>(rng.range(lo, hi));
      s.routings = {Routing::realistic};
    }
    s.note = "seeded random shape";
    validate_shape(s);
    out.push_back(s);
  }
  return out;
}

}  // namespace kbit::verify
