#include "bench_core.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "kbit/error.h"

namespace kbit::bench {

namespace {
double quantile(const std::vector<double>& s, double q) {  // s sorted, non-empty
  const double pos = q * double(s.size() - 1);
  const size_t lo = size_t(std::floor(pos));
  const size_t hi = std::min(lo + 1, s.size() - 1);
  const double f = pos - double(lo);
  return s[lo] + (s[hi] - s[lo]) * f;
}
std::string shape_key(const Row& r) {
  return r.model + "|" + r.shape + "|M=" + std::to_string(r.M) + (r.hot ? "|hot" : "|cold");
}
}  // namespace

Stats stats_of(std::vector<double> s) {
  Stats st;
  if (s.empty()) return st;
  std::sort(s.begin(), s.end());
  st.n = int(s.size());
  st.min = s.front();
  st.max = s.back();
  st.median = quantile(s, 0.5);
  st.q1 = quantile(s, 0.25);
  st.q3 = quantile(s, 0.75);
  return st;
}

double kbit_bytes_per_weight(int bits) { return bits / 8.0 + 1.0 / 32.0; }

Traffic traffic(int64_t N, int64_t K, int bits, int64_t experts_read, int64_t rows, int act_elem_bytes) {
  Traffic t;
  const double per_w = bits == 0 ? 2.0 : kbit_bytes_per_weight(bits);
  t.weight_bytes = double(experts_read) * double(N) * double(K) * per_w;
  t.act_bytes = double(rows) * double(K) * act_elem_bytes;
  t.out_bytes = double(rows) * double(N) * act_elem_bytes;
  return t;
}

double flops(int64_t N, int64_t K, int64_t rows) { return 2.0 * double(rows) * double(N) * double(K); }

std::string Row::key() const {
  return model + "|" + shape + "|M=" + std::to_string(M) + "|k=" + std::to_string(bits) + "|" + dtype + "|" + kernel +
         (hot ? "|hot" : "|cold");
}

void fill_rates(Row& r, double measured_gbps) {
  r.gbps = r.pct_bw = r.tflops = 0;
  if (!r.timed()) return;
  const double s = r.us.median * 1e-6;
  r.gbps = r.bytes / s / 1e9;
  r.pct_bw = measured_gbps > 0 ? 100.0 * r.gbps / measured_gbps : 0;
  r.tflops = r.flop / s / 1e12;
}

void fill_ratios(std::vector<Row>& rows) {
  std::map<std::string, double> f16, bf16, moe;
  for (const Row& r : rows) {
    if (r.kind != "baseline" || !r.timed()) continue;
    const std::string k = shape_key(r);
    // MoE shapes have no dense cuBLAS reference (reports of commit b0ffa7e and earlier carry a
    // dense GEMM against one expert; it is not an alternative and is ignored here).
    if (r.kernel == "cublas_f16" && !r.moe) f16[k] = r.us.median;
    if (r.kernel == "cublas_bf16" && !r.moe) bf16[k] = r.us.median;
    if (r.moe && (r.kernel == "cublas_loop_f16" || r.kernel == "cublas_grouped_f16")) {
      auto it = moe.find(k);
      if (it == moe.end() || r.us.median < it->second) moe[k] = r.us.median;
    }
  }
  for (Row& r : rows) {
    r.ratio_f16 = r.ratio_bf16 = r.ratio_moe = 0;
    if (!r.timed()) continue;
    const std::string k = shape_key(r);
    if (auto it = f16.find(k); it != f16.end()) r.ratio_f16 = it->second / r.us.median;
    if (auto it = bf16.find(k); it != bf16.end()) r.ratio_bf16 = it->second / r.us.median;
    if (auto it = moe.find(k); it != moe.end()) r.ratio_moe = it->second / r.us.median;
  }
}

std::string kernel_of(const std::string& name) {
  const size_t n = name.size();
  return n > 4 && name.compare(n - 4, 4, "_pdl") == 0 ? name.substr(0, n - 4) : name;
}

bool is_launch_mode_row(const Row& r) { return r.kind == "kbit" && kernel_of(r.kernel) != r.kernel; }

bool is_fp16_reference(const Row& r) {
  if (r.kind != "baseline") return false;
  return r.moe ? (r.kernel == "cublas_loop_f16" || r.kernel == "cublas_grouped_f16") : r.kernel == "cublas_f16";
}

DispatchAudit dispatch_audit(const std::vector<Row>& rows, double margin) {
  auto case_key = [](const Row& r) {
    return r.model + "|" + r.shape + "|" + std::to_string(r.M) + "|" + std::to_string(r.bits) + "|" + r.dtype +
           (r.hot ? "|hot" : "|cold");
  };
  // [0]: plain kernels, the competitors of `automatic`; [1]: the per-kernel PDL rows (gemv_pdl, ...),
  // the competitors of `automatic_pdl`.
  std::map<std::string, size_t> best[2];  // case -> fastest other kernel
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (r.kind != "kbit" || !r.timed() || r.verify != "PASS" || kernel_of(r.kernel) == "automatic" || r.kernel == "v0")
      continue;
    auto [it, fresh] = best[is_launch_mode_row(r) ? 1 : 0].emplace(case_key(r), i);
    if (!fresh && r.us.median < rows[it->second].us.median) it->second = i;
  }
  DispatchAudit a;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (r.kind != "kbit" || kernel_of(r.kernel) != "automatic" || !r.timed() || r.verify != "PASS") continue;
    const auto& b_map = best[is_launch_mode_row(r) ? 1 : 0];
    const auto it = b_map.find(case_key(r));
    if (it == b_map.end()) continue;
    ++a.automatic_rows;
    const Row& b = rows[it->second];
    if (r.us.median > b.us.median * (1.0 + margin) && r.us.min > b.us.max)
      a.misses.push_back({i, it->second, r.us.median / b.us.median});
  }
  return a;
}

std::vector<Total> make_totals(const std::vector<Row>& rows) {
  // Shapes of each model in first-seen order; the fp16 reference per (shape key).
  std::map<std::string, std::vector<std::string>> model_shapes;
  std::map<std::string, double> fp16;  // shape_key -> fastest fp16 reference
  std::set<std::string> combos;        // model|M|bits|dtype|hot of plain kbit rows
  struct Best {
    double us = 0;
    std::string kernel;
  };
  // shape_key|bits|dtype -> fastest passing kbit row: [0] plain launches only, [1] launch-mode rows too
  std::map<std::string, Best> best[2];
  std::set<std::string> mode_combos;  // combos that have a launch-mode row
  for (const Row& r : rows) {
    auto& v = model_shapes[r.model];
    if (std::find(v.begin(), v.end(), r.shape) == v.end()) v.push_back(r.shape);
    if (is_fp16_reference(r) && r.timed()) {
      auto [it, fresh] = fp16.emplace(shape_key(r), r.us.median);
      if (!fresh) it->second = std::min(it->second, r.us.median);
    }
    if (r.kind == "kbit") {
      const std::string combo = r.model + "\x1f" + std::to_string(r.M) + "\x1f" + std::to_string(r.bits) + "\x1f" +
                                r.dtype + "\x1f" + (r.hot ? "1" : "0");
      const bool mode = is_launch_mode_row(r);
      (mode ? mode_combos : combos).insert(combo);
      if (r.timed() && r.verify == "PASS") {
        const std::string k = shape_key(r) + "|" + std::to_string(r.bits) + "|" + r.dtype;
        for (int m = mode ? 1 : 0; m < 2; ++m) {
          auto it = best[m].find(k);
          if (it == best[m].end() || r.us.median < it->second.us) best[m][k] = {r.us.median, r.kernel};
        }
      }
    }
  }
  std::vector<Total> out;
  // Plain totals for the combinations with plain rows, +pdl totals for those with launch-mode rows.
  std::set<std::string> all = combos;
  all.insert(mode_combos.begin(), mode_combos.end());
  for (const std::string& c : all)
  for (int m = 0; m < 2; ++m) {
    if (!(m == 0 ? combos : mode_combos).count(c)) continue;
    std::vector<std::string> f;
    size_t p = 0;
    for (size_t q; (q = c.find('\x1f', p)) != std::string::npos; p = q + 1) f.push_back(c.substr(p, q - p));
    f.push_back(c.substr(p));
    Total t;
    t.model = f[0];
    t.M = std::stoll(f[1]);
    t.bits = std::stoi(f[2]);
    t.dtype = f[3];
    t.hot = f[4] == "1";
    t.pdl = m == 1;
    for (const std::string& shape : model_shapes[t.model]) {
      Row probe;
      probe.model = t.model, probe.shape = shape, probe.M = t.M, probe.hot = t.hot;
      const std::string sk = shape_key(probe);
      // Only shapes that were part of this run at this M count.
      bool present = false;
      for (const Row& r : rows)
        if (r.model == t.model && r.shape == shape && r.M == t.M && r.hot == t.hot) present = true;
      if (!present) continue;
      ++t.shapes;
      auto b = best[m].find(sk + "|" + std::to_string(t.bits) + "|" + t.dtype);
      auto r = fp16.find(sk);
      if (b == best[m].end() || r == fp16.end()) {
        ++t.missing;
        t.best.push_back(shape + "=-");
        continue;
      }
      t.kbit_us += b->second.us;
      t.fp16_us += r->second;
      t.best.push_back(shape + "=" + b->second.kernel);
    }
    t.ratio = (t.missing == 0 && t.kbit_us > 0) ? t.fp16_us / t.kbit_us : 0;
    out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(), [](const Total& a, const Total& b) {
    return std::tie(a.model, a.bits, a.dtype, a.hot, a.pdl, a.M) < std::tie(b.model, b.bits, b.dtype, b.hot, b.pdl, b.M);
  });
  return out;
}

SweepOptions quick_options() {
  SweepOptions o;
  o.Ms = {1, 16, 128};
  o.dtypes = {"f16"};
  o.models = {"qwen3-coder-next", "llama-3-8b"};
  o.v0_max_m = 0;
  return o;
}

const std::vector<std::string>& dense_kernel_names() {
  static const std::vector<std::string> v = {"v0", "gemv", "tcv", "tcw", "mma", "dequant_cublas", "automatic",
                                              "automatic_pdl"};
  return v;
}
const std::vector<std::string>& dense_opt_in_kernel_names() {
  static const std::vector<std::string> v = {"gemv_pdl", "tcv_pdl", "tcw_pdl"};
  return v;
}
const std::vector<std::string>& moe_opt_in_kernel_names() {
  // grouped_mma takes no MoeArgs::pdl (kernels/api.cu), so it has no PDL row.
  static const std::vector<std::string> v = {"grouped_gemv_pdl", "grouped_tcv_pdl", "grouped_tcw_pdl"};
  return v;
}
const std::vector<std::string>& moe_kernel_names() {
  static const std::vector<std::string> v = {"v0", "grouped_gemv", "grouped_tcv", "grouped_mma", "grouped_tcw", "automatic",
                                              "automatic_pdl"};
  return v;
}
const std::vector<std::string>& dense_baseline_names() {
  static const std::vector<std::string> v = {"cublas_f16", "cublas_bf16"};
  return v;
}
const std::vector<std::string>& moe_baseline_names() {
  // No dense cublas_f16/bf16 row for MoE shapes: a dense GEMM of the routed rows against one expert
  // is not an alternative anyone can run (the first H100 run showed its "bandwidth" at 50x DRAM).
  static const std::vector<std::string> v = {"cublas_loop_f16", "cublas_grouped_f16"};
  return v;
}

std::vector<PlannedCase> plan_sweep(const verify::Catalogue& cat, const SweepOptions& o) {
  for (const std::string& m : o.models)
    if (!cat.find_model(m)) throw Error("unknown model '" + m + "' (not in " + cat.origin + ")");
  for (const std::string& k : o.kernels) {
    bool known = false;
    for (const auto* names : {&dense_kernel_names(), &moe_kernel_names(), &dense_opt_in_kernel_names(),
                              &moe_opt_in_kernel_names()})
      known = known || std::find(names->begin(), names->end(), k) != names->end();
    if (!known) throw Error("unknown kernel '" + k + "'");
  }
  for (int b : o.bits)
    if (b < 2 || b > 5) throw Error("bits must be 2..5, got " + std::to_string(b));
  for (const std::string& d : o.dtypes)
    if (d != "f16" && d != "bf16") throw Error("dtype must be f16 or bf16, got '" + d + "'");
  for (int64_t M : o.Ms)
    if (M < 1) throw Error("M must be >= 1");
  auto wanted = [&](const std::string& k) {
    return o.kernels.empty() || std::find(o.kernels.begin(), o.kernels.end(), k) != o.kernels.end();
  };
  std::vector<PlannedCase> plan;
  for (const verify::Model& m : cat.models) {
    if (!o.models.empty() && std::find(o.models.begin(), o.models.end(), m.name) == o.models.end()) continue;
    for (const verify::GemmShape& s : m.gemms) {
      if (!s.block && !o.include_non_block) continue;
      for (int64_t M : o.Ms) {
        const auto& bl = s.moe ? moe_baseline_names() : dense_baseline_names();
        for (const std::string& b : bl)
          plan.push_back({&s, M, 0, b.find("bf16") != std::string::npos ? "bf16" : "f16", b});
        for (int bits : o.bits)
          for (const std::string& dt : o.dtypes)
            for (const bool opt_in : {false, true}) {  // opt-in rows only where o.kernels names them
              const auto& names = opt_in ? (s.moe ? moe_opt_in_kernel_names() : dense_opt_in_kernel_names())
                                         : (s.moe ? moe_kernel_names() : dense_kernel_names());
              for (const std::string& k : names) {
                if (opt_in ? std::find(o.kernels.begin(), o.kernels.end(), k) == o.kernels.end() : !wanted(k)) continue;
                if (k == "v0" && M > o.v0_max_m) continue;
                if (kernel_of(k) == "gemv" && M > o.gemv_max_m) continue;
                if (kernel_of(k) == "tcv" && M > o.tcv_max_m) continue;
                plan.push_back({&s, M, bits, dt, k});
              }
            }
      }
    }
  }
  return plan;
}

Estimate estimate_plan(const std::vector<PlannedCase>& plan, int replays, double gbps) {
  // Model (docs/kbit-bench.md): per case 60 ms fixed (host reference compare, graph capture and
  // instantiate, copies) plus (replays + 2) replays of max(launches x floor, 2 ms); the v0
  // kernels run ~100x the bandwidth floor per row of M; weight generation ~2 s per G weights per
  // (shape, bits) on 16 cores, plus 0.1 s per shape and M for routing and activations.
  Estimate e;
  std::set<std::string> weights, shape_m;
  for (const PlannedCase& c : plan) {
    const verify::GemmShape& s = *c.shape;
    ++e.cases;
    const int64_t rows = s.moe ? c.M * s.top_k : c.M;
    const int64_t active = s.moe ? std::min<int64_t>(s.E, rows) : 1;
    const Traffic t = traffic(s.N, s.K, c.bits, active, rows);
    double us = std::max(4.0, t.bytes() / (gbps * 1e3));
    if (c.kernel == "v0") us *= 50.0 * double(c.M);
    const double copies = std::max(1.0, std::ceil(4 * 50e6 / std::max(t.weight_bytes, 1.0)));
    const double launches = std::max({copies, 8.0, std::ceil(2000.0 / us)});
    const double replay_s = std::max(launches * us, 2000.0) * 1e-6;
    e.seconds += 0.06 + (replays + 2) * replay_s;
    const std::string wk = s.label() + "|" + std::to_string(c.bits);
    if (weights.insert(wk).second) e.seconds += 2.0 * s.weights() / 1e9 + 0.05;
    if (shape_m.insert(s.label() + "|" + std::to_string(c.M)).second) e.seconds += 0.1;
  }
  return e;
}

CompareResult compare_rows(const std::vector<Row>& a, const std::vector<Row>& b, const CompareOptions& o) {
  CompareResult res;
  std::map<std::string, const Row*> bm;
  for (const Row& r : b) bm[r.key()] = &r;
  std::set<std::string> seen;
  for (const Row& ra : a) {
    const std::string k = ra.key();
    seen.insert(k);
    RowChange c;
    c.key = k;
    c.a_us = ra.timed() ? ra.us.median : 0;
    auto it = bm.find(k);
    if (it == bm.end()) {
      ++res.only_a;
      c.why = "missing in B";
      res.changes.push_back(c);
      continue;
    }
    const Row& rb = *it->second;
    c.b_us = rb.timed() ? rb.us.median : 0;
    const bool a_ok = ra.timed() && (ra.verify == "PASS" || ra.verify == "ref");
    const bool b_ok = rb.timed() && (rb.verify == "PASS" || rb.verify == "ref");
    if (a_ok && !b_ok) {
      c.regression = true;
      c.why = "verify " + ra.verify + " -> " + rb.verify + (rb.timed() ? "" : " (no time)");
    } else if (a_ok && b_ok) {
      c.change = (c.b_us - c.a_us) / c.a_us;
      if (rb.us.min > ra.us.max && c.change > o.threshold) {
        c.regression = true;
        c.why = "slower beyond spread";
      } else if (rb.us.max < ra.us.min && -c.change > o.threshold) {
        c.improvement = true;
        c.why = "faster beyond spread";
      } else {
        c.why = "within spread";
      }
    } else if (!a_ok && b_ok) {
      c.improvement = true;
      c.why = "now passes";
    } else {
      c.why = "not timed in A or B";
    }
    res.regressions += c.regression;
    res.improvements += c.improvement;
    res.changes.push_back(c);
  }
  for (const Row& rb : b)
    if (!seen.count(rb.key())) {
      ++res.only_b;
      RowChange c;
      c.key = rb.key();
      c.b_us = rb.timed() ? rb.us.median : 0;
      c.why = "new in B";
      res.changes.push_back(c);
    }
  return res;
}

// ---- JSON ----
nlohmann::json to_json(const Row& r) {
  nlohmann::json j = {{"model", r.model},   {"shape", r.shape},       {"moe", r.moe},
                      {"N", r.N},           {"K", r.K},               {"E", r.E},
                      {"top_k", r.top_k},   {"M", r.M},               {"rows", r.rows},
                      {"active_experts", r.active_experts},           {"bits", r.bits},
                      {"dtype", r.dtype},   {"kind", r.kind},         {"kernel", r.kernel},
                      {"dispatch", r.dispatch}, {"hot", r.hot},       {"verify", r.verify},
                      {"note", r.note},     {"copies", r.copies},     {"launches", r.launches}, {"wall_ms", r.wall_ms},
                      {"bytes", r.bytes},   {"flop", r.flop},         {"gbps", r.gbps},
                      {"pct_bw", r.pct_bw}, {"tflops", r.tflops},     {"ratio_f16", r.ratio_f16},
                      {"ratio_bf16", r.ratio_bf16}, {"ratio_moe", r.ratio_moe}};
  j["us"] = {{"n", r.us.n},   {"median", r.us.median}, {"min", r.us.min},
             {"max", r.us.max}, {"q1", r.us.q1},       {"q3", r.us.q3}};
  return j;
}

Row row_from_json(const nlohmann::json& j) {
  Row r;
  r.model = j.at("model").get<std::string>();
  r.shape = j.at("shape").get<std::string>();
  r.moe = j.value("moe", false);
  r.N = j.value("N", int64_t(0));
  r.K = j.value("K", int64_t(0));
  r.E = j.value("E", int64_t(1));
  r.top_k = j.value("top_k", 0);
  r.M = j.at("M").get<int64_t>();
  r.rows = j.value("rows", r.M);
  r.active_experts = j.value("active_experts", int64_t(1));
  r.bits = j.value("bits", 0);
  r.dtype = j.value("dtype", std::string());
  r.kind = j.value("kind", std::string());
  r.kernel = j.at("kernel").get<std::string>();
  r.dispatch = j.value("dispatch", std::string());
  r.hot = j.value("hot", false);
  r.verify = j.value("verify", std::string());
  r.note = j.value("note", std::string());
  r.copies = j.value("copies", 0);
  r.launches = j.value("launches", 0);
  r.wall_ms = j.value("wall_ms", 0.0);
  r.bytes = j.value("bytes", 0.0);
  r.flop = j.value("flop", 0.0);
  r.gbps = j.value("gbps", 0.0);
  r.pct_bw = j.value("pct_bw", 0.0);
  r.tflops = j.value("tflops", 0.0);
  r.ratio_f16 = j.value("ratio_f16", 0.0);
  r.ratio_bf16 = j.value("ratio_bf16", 0.0);
  r.ratio_moe = j.value("ratio_moe", 0.0);
  if (j.contains("us")) {
    const auto& u = j["us"];
    r.us.n = u.value("n", 0);
    r.us.median = u.value("median", 0.0);
    r.us.min = u.value("min", 0.0);
    r.us.max = u.value("max", 0.0);
    r.us.q1 = u.value("q1", 0.0);
    r.us.q3 = u.value("q3", 0.0);
  }
  return r;
}

nlohmann::json to_json(const Report& rep) {
  const RunInfo& i = rep.info;
  nlohmann::json j;
  j["schema"] = "kbit-bench/1";
  j["run"] = {{"tool_version", i.tool_version}, {"git_commit", i.git_commit}, {"started_utc", i.started_utc},
              {"device", i.device}, {"driver", i.driver}, {"cuda_runtime", i.cuda_runtime},
              {"sm_clock_mhz", i.sm_clock_mhz}, {"mem_clock_mhz", i.mem_clock_mhz}, {"l2_bytes", i.l2_bytes},
              {"read_gbps", i.read_gbps}, {"hot", i.hot}, {"quick", i.quick}, {"replays", i.replays},
              {"command_line", i.command_line}, {"clocks_start", i.clocks_start}, {"clocks_end", i.clocks_end},
              {"planned", i.planned}, {"interrupted", i.interrupted}};
  j["rows"] = nlohmann::json::array();
  for (const Row& r : rep.rows) j["rows"].push_back(to_json(r));
  j["totals"] = nlohmann::json::array();
  for (const Total& t : rep.totals)
    j["totals"].push_back({{"model", t.model}, {"M", t.M}, {"bits", t.bits}, {"dtype", t.dtype}, {"hot", t.hot},
                           {"shapes", t.shapes}, {"missing", t.missing}, {"kbit_us", t.kbit_us},
                           {"fp16_us", t.fp16_us}, {"ratio", t.ratio}, {"best", t.best}, {"pdl", t.pdl}});
  return j;
}

Report report_from_json(const nlohmann::json& j) {
  if (!j.is_object() || j.value("schema", std::string()) != "kbit-bench/1")
    throw Error("not a kbit-bench/1 JSON report (schema field)");
  Report rep;
  if (j.contains("run")) {
    const auto& r = j["run"];
    RunInfo& i = rep.info;
    i.tool_version = r.value("tool_version", i.tool_version);
    i.git_commit = r.value("git_commit", std::string());
    i.started_utc = r.value("started_utc", std::string());
    i.device = r.value("device", std::string());
    i.driver = r.value("driver", std::string());
    i.cuda_runtime = r.value("cuda_runtime", std::string());
    i.sm_clock_mhz = r.value("sm_clock_mhz", 0);
    i.mem_clock_mhz = r.value("mem_clock_mhz", 0);
    i.l2_bytes = r.value("l2_bytes", int64_t(0));
    i.read_gbps = r.value("read_gbps", 0.0);
    i.hot = r.value("hot", false);
    i.quick = r.value("quick", false);
    i.replays = r.value("replays", 0);
    i.command_line = r.value("command_line", std::string());
    i.clocks_start = r.value("clocks_start", std::string());
    i.clocks_end = r.value("clocks_end", std::string());
    i.planned = r.value("planned", 0);
    i.interrupted = r.value("interrupted", false);
  }
  for (const auto& r : j.at("rows")) rep.rows.push_back(row_from_json(r));
  if (j.contains("totals"))
    for (const auto& t : j["totals"]) {
      Total x;
      x.model = t.at("model").get<std::string>();
      x.M = t.at("M").get<int64_t>();
      x.bits = t.value("bits", 0);
      x.dtype = t.value("dtype", std::string());
      x.hot = t.value("hot", false);
      x.shapes = t.value("shapes", 0);
      x.missing = t.value("missing", 0);
      x.kbit_us = t.value("kbit_us", 0.0);
      x.fp16_us = t.value("fp16_us", 0.0);
      x.ratio = t.value("ratio", 0.0);
      x.best = t.value("best", std::vector<std::string>());
      x.pdl = t.value("pdl", false);
      rep.totals.push_back(std::move(x));
    }
  return rep;
}

}  // namespace kbit::bench
