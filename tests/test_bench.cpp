// kbit-bench's CPU side: byte/FLOP accounting, replay statistics, ratios and TOTAL rows, the sweep
// plan, compare-mode regression logic, and the CSV/JSON/markdown/SVG writers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_core.h"
#include "catalogue.h"
#include "kbit/error.h"
#include "report.h"

using namespace kbit::bench;

namespace {

Row make_row(const std::string& shape, int64_t M, const std::string& kind, const std::string& kernel, double us,
             int bits = 4, bool moe = false) {
  Row r;
  r.model = "m";
  r.shape = shape;
  r.M = M;
  r.rows = M;
  r.kind = kind;
  r.kernel = kernel;
  r.bits = kind == "kbit" ? bits : 0;
  r.dtype = kernel == "cublas_bf16" ? "bf16" : "f16";
  r.moe = moe;
  r.verify = kind == "kbit" ? "PASS" : "ref";
  if (us > 0) r.us = stats_of({us * 0.99, us, us * 1.01});
  return r;
}

// A minimal XML well-formedness check: every tag closes in order, attributes quoted, no stray '<'
// or '&' in text. Returns the number of elements, or -1 on an error.
int xml_elements(const std::string& s) {
  std::vector<std::string> stack;
  int count = 0;
  size_t i = 0;
  if (s.rfind("<?xml", 0) == 0) i = s.find("?>") + 2;
  while (i < s.size()) {
    if (s[i] == '&') {
      const size_t semi = s.find(';', i);
      if (semi == std::string::npos || semi - i > 6) return -1;
      i = semi + 1;
      continue;
    }
    if (s[i] != '<') {
      ++i;
      continue;
    }
    const size_t end = s.find('>', i);
    if (end == std::string::npos) return -1;
    std::string tag = s.substr(i + 1, end - i - 1);
    // quotes must balance inside a tag, and no '<' may appear in it
    if (std::count(tag.begin(), tag.end(), '"') % 2 || tag.find('<') != std::string::npos) return -1;
    if (!tag.empty() && tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name) return -1;
      stack.pop_back();
    } else {
      const bool self = !tag.empty() && tag.back() == '/';
      const std::string name = tag.substr(0, tag.find_first_of(" \t\n/"));
      if (name.empty()) return -1;
      ++count;
      if (!self) stack.push_back(name);
    }
    i = end + 1;
  }
  return stack.empty() ? count : -1;
}

}  // namespace

TEST_CASE("bench accounting: kbit bytes per weight and traffic") {
  CHECK(kbit_bytes_per_weight(4) == doctest::Approx(0.53125));
  CHECK(kbit_bytes_per_weight(2) == doctest::Approx(0.28125));
  CHECK(kbit_bytes_per_weight(5) == doctest::Approx(0.65625));
  // Llama-3-70B gate_up half (K 8192, N 28672), M = 1, k = 4: 124.8 MB weights.
  Traffic t = traffic(28672, 8192, 4, 1, 1);
  CHECK(t.weight_bytes == doctest::Approx(28672.0 * 8192 * 0.53125));
  CHECK(t.act_bytes == doctest::Approx(8192 * 2));
  CHECK(t.out_bytes == doctest::Approx(28672 * 2));
  CHECK(t.bytes() == doctest::Approx(t.weight_bytes + 8192 * 2 + 28672 * 2));
  // bits 0: the fp16 baseline reads 2 bytes per weight.
  CHECK(traffic(100, 64, 0, 1, 3).weight_bytes == doctest::Approx(100 * 64 * 2.0));
  // MoE: only the active experts' weights are read.
  CHECK(traffic(1024, 2048, 4, 10, 10).weight_bytes == doctest::Approx(10.0 * 1024 * 2048 * 0.53125));
  CHECK(flops(4096, 2048, 16) == doctest::Approx(2.0 * 16 * 4096 * 2048));
}

TEST_CASE("bench stats: median quartiles and spread") {
  Stats s = stats_of({5, 1, 3, 2, 4});
  CHECK(s.n == 5);
  CHECK(s.median == 3);
  CHECK(s.min == 1);
  CHECK(s.max == 5);
  CHECK(s.q1 == 2);
  CHECK(s.q3 == 4);
  CHECK(s.rel_spread() == doctest::Approx(2.0 / 3.0));
  Stats e = stats_of({10, 20, 30, 40});
  CHECK(e.median == doctest::Approx(25));
  CHECK(e.q1 == doctest::Approx(17.5));
  CHECK(e.q3 == doctest::Approx(32.5));
  CHECK(stats_of({}).n == 0);
  CHECK(stats_of({7}).rel_spread() == 0);
}

TEST_CASE("bench rates and ratios against the baselines of the same shape and M") {
  Row r = make_row("a", 1, "kbit", "mma", 10.0);
  r.bytes = 30e6;  // 30 MB in 10 us = 3000 GB/s
  r.flop = 2e9;    // 2 GFLOP in 10 us = 200 TFLOP/s
  fill_rates(r, 3000.0);
  CHECK(r.gbps == doctest::Approx(3000.0));
  CHECK(r.pct_bw == doctest::Approx(100.0));
  CHECK(r.tflops == doctest::Approx(200.0));

  std::vector<Row> rows = {make_row("a", 1, "baseline", "cublas_f16", 30.0), make_row("a", 1, "baseline", "cublas_bf16", 20.0),
                           make_row("a", 1, "kbit", "mma", 10.0), make_row("a", 2, "kbit", "mma", 10.0)};
  fill_ratios(rows);
  CHECK(rows[2].ratio_f16 == doctest::Approx(3.0));
  CHECK(rows[2].ratio_bf16 == doctest::Approx(2.0));
  CHECK(rows[3].ratio_f16 == 0);  // no baseline at M = 2
  CHECK(rows[0].ratio_f16 == doctest::Approx(1.0));

  // MoE: the fastest fp16 alternative.
  std::vector<Row> moe = {make_row("e", 4, "baseline", "cublas_loop_f16", 50.0, 0, true),
                          make_row("e", 4, "baseline", "cublas_grouped_f16", 40.0, 0, true),
                          make_row("e", 4, "kbit", "grouped_gemv", 8.0, 4, true)};
  fill_ratios(moe);
  CHECK(moe[2].ratio_moe == doctest::Approx(5.0));
  // A dense cuBLAS row of a MoE shape (older reports) is no reference for the MoE kernels.
  moe.push_back(make_row("e", 4, "baseline", "cublas_f16", 2.0, 0, true));
  fill_ratios(moe);
  CHECK(moe[2].ratio_f16 == 0);
  CHECK(moe[2].ratio_moe == doctest::Approx(5.0));
}

TEST_CASE("bench TOTAL rows sum the best passing kernel against the fp16 reference") {
  std::vector<Row> rows = {
      make_row("a", 1, "baseline", "cublas_f16", 30.0),
      make_row("a", 1, "kbit", "mma", 12.0),
      make_row("a", 1, "kbit", "gemv", 10.0),
      make_row("a", 1, "kbit", "v0", 5.0),  // fastest but fails verification: not counted
      make_row("e", 1, "baseline", "cublas_f16", 100.0, 0, true),  // not the MoE reference
      make_row("e", 1, "baseline", "cublas_loop_f16", 60.0, 0, true),
      make_row("e", 1, "baseline", "cublas_grouped_f16", 50.0, 0, true),
      make_row("e", 1, "kbit", "grouped_gemv", 10.0, 4, true),
      make_row("a", 1, "kbit", "automatic_pdl", 8.0),  // another launch mode: only in the +pdl total
  };
  rows[3].verify = "FAIL";
  CHECK(kernel_of("tcv_pdl") == "tcv");
  CHECK(kernel_of("automatic_pdl") == "automatic");
  CHECK(kernel_of("automatic") == "automatic");
  CHECK(kernel_of("_pdl") == "_pdl");  // a suffix needs a kernel in front of it
  CHECK(is_launch_mode_row(rows.back()));
  CHECK_FALSE(is_launch_mode_row(rows[2]));
  std::vector<Total> t = make_totals(rows);
  REQUIRE(t.size() == 2);
  CHECK_FALSE(t[0].pdl);
  CHECK(t[1].pdl);
  CHECK(t[1].kbit_us == doctest::Approx(18.0));
  CHECK(t[1].fp16_us == doctest::Approx(80.0));
  CHECK(t[1].best == std::vector<std::string>{"a=automatic_pdl", "e=grouped_gemv"});
  CHECK(t[0].model == "m");
  CHECK(t[0].M == 1);
  CHECK(t[0].shapes == 2);
  CHECK(t[0].missing == 0);
  CHECK(t[0].kbit_us == doctest::Approx(20.0));
  CHECK(t[0].fp16_us == doctest::Approx(80.0));
  CHECK(t[0].ratio == doctest::Approx(4.0));
  CHECK(t[0].best == std::vector<std::string>{"a=gemv", "e=grouped_gemv"});

  // A shape whose kbit rows all failed makes the total incomplete (ratio 0), not silently smaller.
  rows[1].verify = rows[2].verify = "FAIL";
  t = make_totals(rows);
  REQUIRE(t.size() == 2);
  CHECK(t[0].missing == 1);
  CHECK(t[0].ratio == 0);
  CHECK(t[1].missing == 0);  // the passing automatic_pdl row still covers shape a in the +pdl total
  // Without launch-mode rows there is no +pdl total, and with launch-mode rows only no plain one.
  const Row pdl_row = rows.back();
  rows.pop_back();
  CHECK(make_totals(rows).size() == 1);
  t = make_totals({rows[0], pdl_row});
  REQUIRE(t.size() == 1);
  CHECK(t[0].pdl);
  CHECK(t[0].missing == 0);
}

TEST_CASE("bench dispatch audit names automatic rows slower than another verified kernel") {
  auto autorow = [](const std::string& shape, int64_t M, double us, const std::string& chose) {
    Row r = make_row(shape, M, "kbit", "automatic", us);
    r.dispatch = chose;
    return r;
  };
  std::vector<Row> rows = {
      make_row("a", 1, "kbit", "gemv", 10.0), make_row("a", 1, "kbit", "tcv", 12.0), autorow("a", 1, 10.1, "gemv"),
      make_row("b", 1, "kbit", "gemv", 10.0), make_row("b", 1, "kbit", "tcv", 7.0), autorow("b", 1, 10.0, "gemv"),
      make_row("c", 1, "kbit", "tcv", 10.0), autorow("c", 1, 10.4, "tcv"),   // within 5%
      make_row("d", 1, "kbit", "v0", 1.0), autorow("d", 1, 10.0, "gemv"),   // v0 is not a competitor
      make_row("e", 1, "kbit", "mma", 5.0), autorow("e", 1, 10.0, "dequant_cublas"),
      make_row("a", 1, "baseline", "cublas_f16", 1.0),
      make_row("c", 1, "kbit", "automatic_pdl", 5.0)};  // automatic itself in another launch mode: no competitor
  rows[10].verify = "FAIL";  // a failing row never counts as the fastest
  DispatchAudit a = dispatch_audit(rows);
  CHECK(a.automatic_rows == 3);  // a, b, c had a verified competitor; d and e did not
  REQUIRE(a.misses.size() == 1);
  CHECK(rows[a.misses[0].automatic].shape == "b");
  CHECK(rows[a.misses[0].best].kernel == "tcv");
  CHECK(a.misses[0].slowdown == doctest::Approx(10.0 / 7.0));
  // automatic_pdl competes with the per-kernel PDL rows only, automatic with the plain ones only.
  {
    auto pdlrow = [](const std::string& kernel, double us) { return make_row("p", 1, "kbit", kernel, us); };
    std::vector<Row> pr = {pdlrow("tcv", 5.0), pdlrow("tcw_pdl", 6.0), pdlrow("tcv_pdl", 9.0),
                           pdlrow("automatic_pdl", 9.0), pdlrow("automatic", 5.1)};
    const DispatchAudit pa = dispatch_audit(pr);
    CHECK(pa.automatic_rows == 2);
    REQUIRE(pa.misses.size() == 1);
    CHECK(pr[pa.misses[0].automatic].kernel == "automatic_pdl");
    CHECK(pr[pa.misses[0].best].kernel == "tcw_pdl");
    // The same for MoE rows: automatic_pdl against grouped_*_pdl, not the plain grouped rows.
    std::vector<Row> mr = {pdlrow("grouped_gemv", 4.0), pdlrow("grouped_tcv_pdl", 5.0), pdlrow("automatic_pdl", 5.6)};
    for (Row& r : mr) r.moe = true;
    const DispatchAudit ma = dispatch_audit(mr);
    CHECK(ma.automatic_rows == 1);
    REQUIRE(ma.misses.size() == 1);
    CHECK(mr[ma.misses[0].best].kernel == "grouped_tcv_pdl");
    mr[1].us = stats_of({5.5, 5.5, 5.5});  // within the margin: no miss, and grouped_gemv (plain) never competes
    CHECK(dispatch_audit(mr).misses.empty());
  }
  // overlapping spreads are not a miss even above the margin
  std::vector<Row> noisy = {make_row("a", 1, "kbit", "tcv", 10.0), autorow("a", 1, 10.6, "gemv")};
  noisy[1].us = stats_of({9.0, 10.6, 12.0});
  CHECK(dispatch_audit(noisy).misses.empty());
  // and the markdown report lists the miss
  Report rep;
  rep.rows = rows;
  const std::string md = format_markdown(rep);
  CHECK(md.find("1 of 3 `automatic` rows") != std::string::npos);
  CHECK(md.find("| m | b | 1 | 4 | f16 | automatic->gemv | 10.00 | tcv | 7.00 | 1.43x |") != std::string::npos);
}

TEST_CASE("bench sweep plan from the catalogue") {
  const kbit::verify::Catalogue cat = kbit::verify::load_catalogue(KBIT_DATA_DIR "/shapes.json");
  SweepOptions o;
  o.models = {"qwen3-coder-next"};
  o.Ms = {1, 16};
  o.dtypes = {"f16"};
  auto plan = plan_sweep(cat, o);
  REQUIRE(!plan.empty());
  int moe_loop = 0, moe_dense = 0, gemv = 0, v0 = 0, non_block = 0;
  for (const auto& c : plan) {
    if (c.kernel == "cublas_loop_f16") ++moe_loop;
    if (c.shape->moe && (c.kernel == "cublas_f16" || c.kernel == "cublas_bf16")) ++moe_dense;
    if (c.kernel == "gemv") {
      ++gemv;
      CHECK(c.M <= 4);
    }
    if (c.kernel == "v0") {
      ++v0;
      CHECK(c.M <= o.v0_max_m);
    }
    if (!c.shape->block) ++non_block;
    CHECK(c.shape->model == "qwen3-coder-next");
  }
  CHECK(moe_loop == 2 * 2);  // two MoE block shapes (gate_up, down) x two M
  CHECK(moe_dense == 0);     // MoE shapes compare with the per-expert loop and grouped GEMM only
  CHECK(gemv > 0);
  CHECK(v0 > 0);
  CHECK(non_block == 0);
  // Unknown names are refused.
  o.models = {"nope"};
  CHECK_THROWS_AS(plan_sweep(cat, o), kbit::Error);
  o.models = {};
  o.kernels = {"fastest"};
  CHECK_THROWS_AS(plan_sweep(cat, o), kbit::Error);
  // The per-kernel PDL rows run only when asked for, on dense shapes, within their kernel's M range.
  o.models = {"qwen3-coder-next"};
  o.kernels = {"tcv_pdl", "gemv_pdl"};
  o.Ms = {1, 16};
  int tcv_pdl = 0, gemv_pdl = 0, other = 0;
  for (const auto& c : plan_sweep(cat, o)) {
    if (c.bits == 0) continue;  // the cuBLAS baselines always run
    CHECK_FALSE(c.shape->moe);
    if (c.kernel == "tcv_pdl") ++tcv_pdl;
    else if (c.kernel == "gemv_pdl") { ++gemv_pdl; CHECK(c.M == 1); }
    else ++other;
  }
  CHECK(tcv_pdl > 0);
  CHECK(gemv_pdl > 0);
  CHECK(other == 0);
  // Their MoE counterparts likewise, on MoE shapes only (grouped_mma has no PDL row).
  o.kernels = {"grouped_tcv_pdl", "grouped_gemv_pdl", "automatic_pdl"};
  int grouped_pdl = 0, moe_auto_pdl = 0, dense_auto_pdl = 0;
  other = 0;
  for (const auto& c : plan_sweep(cat, o)) {
    if (c.bits == 0) continue;
    if (c.kernel == "grouped_tcv_pdl" || c.kernel == "grouped_gemv_pdl") {
      CHECK(c.shape->moe);
      ++grouped_pdl;
    } else if (c.kernel == "automatic_pdl") {
      ++(c.shape->moe ? moe_auto_pdl : dense_auto_pdl);
    } else {
      ++other;
    }
  }
  CHECK(grouped_pdl == 2 * moe_auto_pdl);
  CHECK(moe_auto_pdl > 0);
  CHECK(dense_auto_pdl > 0);
  CHECK(other == 0);
  o.kernels = {"grouped_mma_pdl"};
  CHECK_THROWS_AS(plan_sweep(cat, o), kbit::Error);
  o.kernels = {};
  for (const auto& c : plan_sweep(cat, o)) CHECK(c.kernel.find("_pdl") == (c.kernel == "automatic_pdl" ? 9 : std::string::npos));
  o.kernels = {};
  o.bits = {6};
  CHECK_THROWS_AS(plan_sweep(cat, o), kbit::Error);

  // Estimates: the default sweep within ~10 minutes and --quick around a minute (the model of
  // docs/kbit-bench.md; the real H100 time is still to be measured).
  const Estimate full = estimate_plan(plan_sweep(cat, SweepOptions{}), 10);
  const Estimate quick = estimate_plan(plan_sweep(cat, quick_options()), 5);
  CHECK(full.cases > quick.cases);
  CHECK(full.seconds < 600);
  CHECK(quick.seconds < 90);
  CHECK(quick.seconds > 5);
}

TEST_CASE("bench compare flags regressions beyond the measured spread") {
  std::vector<Row> a = {make_row("a", 1, "kbit", "mma", 10.0), make_row("b", 1, "kbit", "mma", 10.0),
                        make_row("c", 1, "kbit", "mma", 10.0), make_row("d", 1, "kbit", "mma", 10.0),
                        make_row("gone", 1, "kbit", "mma", 10.0)};
  std::vector<Row> b = {make_row("a", 1, "kbit", "mma", 10.05),  // inside the spread
                        make_row("b", 1, "kbit", "mma", 12.0),   // slower, no overlap
                        make_row("c", 1, "kbit", "mma", 8.0),    // faster
                        make_row("d", 1, "kbit", "mma", 10.0), make_row("new", 1, "kbit", "mma", 1.0)};
  b[3].verify = "FAIL";
  CompareResult r = compare_rows(a, b, {});
  CHECK(r.regressions == 2);
  CHECK(r.improvements == 1);
  CHECK(r.only_a == 1);
  CHECK(r.only_b == 1);
  for (const auto& c : r.changes) {
    if (c.key.rfind("m|a|", 0) == 0) CHECK(!c.regression);
    if (c.key.rfind("m|b|", 0) == 0) {
      CHECK(c.regression);
      CHECK(c.change == doctest::Approx(0.2));
    }
    if (c.key.rfind("m|d|", 0) == 0) CHECK(c.why.find("FAIL") != std::string::npos);
  }
  // Non-overlapping but below the threshold: not a regression.
  std::vector<Row> a2 = {make_row("x", 1, "kbit", "mma", 10.0)}, b2 = {make_row("x", 1, "kbit", "mma", 10.0)};
  a2[0].us = stats_of({10.0, 10.0});
  b2[0].us = stats_of({10.1, 10.1});
  CHECK(compare_rows(a2, b2, {0.02}).regressions == 0);
  CHECK(compare_rows(a2, b2, {0.005}).regressions == 1);
  CHECK(format_compare(r, true).find("REGRESSION") != std::string::npos);
}

TEST_CASE("bench writers: JSON round trip and CSV and markdown") {
  Report rep;
  rep.info.device = "NVIDIA H100 80GB HBM3";
  rep.info.read_gbps = 3079;
  rep.info.replays = 10;
  rep.rows = {make_row("attn.q_proj", 1, "baseline", "cublas_f16", 17.0), make_row("attn.q_proj", 1, "kbit", "automatic", 12.0)};
  rep.rows[1].dispatch = "gemv";
  rep.rows[1].note = "note, with \"quotes\"";
  fill_ratios(rep.rows);
  rep.totals = make_totals(rep.rows);

  const nlohmann::json j = to_json(rep);
  CHECK(j["schema"] == "kbit-bench/1");
  const Report back = report_from_json(nlohmann::json::parse(j.dump()));
  REQUIRE(back.rows.size() == 2);
  CHECK(back.rows[1].key() == rep.rows[1].key());
  CHECK(back.rows[1].dispatch == "gemv");
  CHECK(back.rows[1].us.median == doctest::Approx(12.0));
  CHECK(back.rows[1].ratio_f16 == doctest::Approx(17.0 / 12.0));
  CHECK(back.info.device == rep.info.device);
  REQUIRE(back.totals.size() == 1);
  CHECK(back.totals[0].ratio == doctest::Approx(17.0 / 12.0));
  CHECK_THROWS_AS(report_from_json(nlohmann::json{{"schema", "other"}}), kbit::Error);

  const std::string csv = format_csv(rep);
  // header + 2 rows + 1 total; every line has the header's field count (quoted commas aside).
  std::vector<std::string> lines;
  for (size_t p = 0, q; (q = csv.find('\n', p)) != std::string::npos; p = q + 1) lines.push_back(csv.substr(p, q - p));
  REQUIRE(lines.size() == 4);
  auto fields = [](const std::string& l) {
    int n = 1;
    bool quoted = false;
    for (char c : l) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted) ++n;
    }
    return n;
  };
  for (const auto& l : lines) CHECK(fields(l) == fields(lines[0]));
  CHECK(csv.find("\"note, with \"\"quotes\"\"\"") != std::string::npos);
  CHECK(csv_escape("plain") == "plain");

  const std::string md = format_markdown(rep);
  CHECK(md.find("automatic->gemv") != std::string::npos);
  CHECK(md.find("| m | 1 | 4 | f16 |") != std::string::npos);
  const std::string table = format_table(rep);
  CHECK(table.find("TOTAL") != std::string::npos);
  CHECK(table.find("1.42x") != std::string::npos);

  // An automatic_pdl row adds a "+pdl" total in every writer, and it survives the JSON round trip.
  {
    Report r2 = rep;
    r2.rows.push_back(make_row("attn.q_proj", 1, "kbit", "automatic_pdl", 8.5));
    fill_ratios(r2.rows);
    r2.totals = make_totals(r2.rows);
    REQUIRE(r2.totals.size() == 2);
    const Report b2 = report_from_json(nlohmann::json::parse(to_json(r2).dump()));
    REQUIRE(b2.totals.size() == 2);
    CHECK_FALSE(b2.totals[0].pdl);
    CHECK(b2.totals[1].pdl);
    CHECK(b2.totals[1].ratio == doctest::Approx(17.0 / 8.5));
    CHECK(format_csv(r2).find(",total,best+pdl,") != std::string::npos);
    const std::string md2 = format_markdown(r2);
    CHECK(md2.find("| m +pdl | 1 | 4 | f16 |") != std::string::npos);
    CHECK(md2.find("Totals marked +pdl") != std::string::npos);
    CHECK(format_table(r2).find("TOTAL +pdl") != std::string::npos);
    CHECK(md.find("Totals marked +pdl") == std::string::npos);
  }

  // A partial report (SIGINT) says so at the top and keeps the flag through JSON.
  CHECK(md.find("PARTIAL") == std::string::npos);
  rep.info.interrupted = true;
  rep.info.planned = 10;
  CHECK(format_markdown(rep).find("**PARTIAL: interrupted after") != std::string::npos);
  const Report partial = report_from_json(to_json(rep));
  CHECK(partial.info.interrupted);
  CHECK(partial.info.planned == 10);
}

TEST_CASE("bench SVG charts are well-formed XML") {
  Chart c;
  c.title = "a <title> & \"quotes\"";
  c.x_label = "M";
  c.y_label = "ratio";
  c.y_ref = 1;
  c.series = {{"mma", {{1, 0.9}, {16, 1.5}, {512, 2.0}}}, {"gemv<&>", {{1, 3.0}, {4, 0.0}}}};
  const std::string svg = render_svg(c);
  CHECK(xml_elements(svg) > 10);
  CHECK(svg.find("<svg ") != std::string::npos);
  CHECK(svg.find("a &lt;title&gt; &amp; &quot;quotes&quot;") != std::string::npos);
  CHECK(svg.find("<polyline") != std::string::npos);
  // The checker itself catches broken XML.
  CHECK(xml_elements("<svg><g></svg>") == -1);
  CHECK(xml_elements("<svg>a & b</svg>") == -1);
  // Empty chart still renders.
  CHECK(xml_elements(render_svg(Chart{})) > 0);

  Report rep;
  rep.rows = {make_row("s", 1, "baseline", "cublas_f16", 20.0), make_row("s", 1, "kbit", "mma", 10.0),
              make_row("s", 16, "baseline", "cublas_f16", 20.0), make_row("s", 16, "kbit", "mma", 15.0)};
  for (auto& r : rep.rows) r.bytes = 1e6;
  for (auto& r : rep.rows) fill_rates(r, 3000);
  fill_ratios(rep.rows);
  auto charts = report_charts(rep);
  REQUIRE(charts.size() == 2);
  for (const auto& [name, svg2] : charts) {
    CHECK(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789._-") == std::string::npos);
    CHECK(xml_elements(svg2) > 0);
  }
  CHECK(safe_file_name("A b/c") == "a_b_c");

  // MoE ratio charts plot the ratio to the fastest fp16 MoE alternative.
  Report moe;
  moe.rows = {make_row("e", 1, "baseline", "cublas_grouped_f16", 40.0, 0, true),
              make_row("e", 1, "kbit", "grouped_gemv", 8.0, 4, true)};
  fill_ratios(moe.rows);
  const auto mc = report_charts(moe);
  REQUIRE(!mc.empty());
  CHECK(mc[0].first.rfind("ratio.", 0) == 0);
  CHECK(mc[0].second.find("best fp16 MoE alternative") != std::string::npos);
}

TEST_CASE("bench progress line") {
  const std::string l = progress_line(25, 100, 10.0, "qwen", 20);
  CHECK(l.rfind("[#####...............]", 0) == 0);
  CHECK(l.find("25/100") != std::string::npos);
  CHECK(l.find("ETA 0:30") != std::string::npos);
  CHECK(l.find("qwen") != std::string::npos);
  CHECK(progress_line(0, 0, 0, "") .find("100%") != std::string::npos);
}
