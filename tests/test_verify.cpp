// kbit-verify's CPU side: the shapes catalogue, routings, the derived tolerances (including that
// a simulated correct kernel stays inside them and simulated wrong ones do not), the gates,
// element sampling, case names, planning and repro files, the input generators, and the CPU side
// of --no-cublas (skipped cases and checks, the tolerance statistics S and Q on the CPU).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "cases.h"
#include "catalogue.h"
#include "compare.h"
#include "kbit/error.h"
#include "kbit/rng.h"
#include "reference/dequantize.h"
#include "reference/gemm.h"
#include "routing.h"
#include "sampling.h"
#include "stats.h"
#include "tolerance.h"
#include "weights.h"

using namespace kbit;
using namespace kbit::verify;

namespace {

const Catalogue& catalogue() {
  static const Catalogue c = load_catalogue(KBIT_DATA_DIR "/shapes.json");
  return c;
}

const GemmShape* find(const Catalogue& c, const std::string& model, const std::string& name) {
  for (const auto& s : c.all_shapes())
    if (s.model == model && s.name == name) return &s;
  return nullptr;
}

std::string with_gemm(const std::string& gemm) {
  return R"({"schema": "kbit-shapes/1", "models": [{"name": "m", "hidden": 64, "gemms": [)" + gemm + "]}]}";
}

}  // namespace

TEST_CASE("shapes catalogue: target models and their block GEMMs") {
  const Catalogue& c = catalogue();
  for (const char* m : {"qwen3-coder-next", "glm-4.7-flash", "llama-3-8b", "llama-3-70b"}) REQUIRE(c.find_model(m));
  CHECK(c.find_model("qwen3-coder-next")->hidden == 2048);
  CHECK(c.find_model("llama-3-70b")->hidden == 8192);

  const GemmShape* qe = find(c, "qwen3-coder-next", "mlp.experts.gate_up");
  REQUIRE(qe);
  CHECK((qe->moe && qe->E == 512 && qe->top_k == 10 && qe->N == 1024 && qe->K == 2048));
  const GemmShape* qd = find(c, "qwen3-coder-next", "mlp.experts.down");
  REQUIRE(qd);
  CHECK((qd->N == 2048 && qd->K == 512 && qd->E == 512));
  const GemmShape* qg = find(c, "qwen3-coder-next", "mlp.dense.gate_up");
  REQUIRE(qg);
  CHECK((qg->N == 2 * 5120 && qg->K == 2048 && qg->fused.size() == 2));  // fused: N doubled
  const GemmShape* ge = find(c, "glm-4.7-flash", "mlp.experts.down");
  REQUIRE(ge);
  CHECK((ge->E == 64 && ge->top_k == 4 && ge->N == 2048 && ge->K == 1536));
  const GemmShape* kva = find(c, "glm-4.7-flash", "attn.kv_a_proj_with_mqa");
  REQUIRE(kva);
  CHECK((kva->N == 576 && kva->K == 2048));
  const GemmShape* l70 = find(c, "llama-3-70b", "mlp.gate_up");
  REQUIRE(l70);
  CHECK((l70->N == 57344 && l70->K == 8192));
  const GemmShape* l8kv = find(c, "llama-3-8b", "attn.k_proj");
  REQUIRE(l8kv);
  CHECK((l8kv->N == 1024 && l8kv->K == 4096));
  for (const auto& s : c.all_shapes()) CHECK_NOTHROW(validate_shape(s));
}

TEST_CASE("shapes catalogue: adversarial shapes cover the tails and the routing edges") {
  const Catalogue& c = catalogue();
  std::set<int64_t> ns;
  bool k_half_tile = false, k32 = false, empty = false, one = false, hundreds = false, e1 = false;
  for (const auto& s : c.adversarial) {
    ns.insert(s.N);
    k_half_tile = k_half_tile || (s.K % 64 == 32 && s.K > 32);
    k32 = k32 || s.K == 32;
    for (Routing r : s.routings) {
      empty = empty || r == Routing::empty_edges || r == Routing::all_empty;
      one = one || r == Routing::one_first || r == Routing::one_last;
    }
    hundreds = hundreds || s.E >= 256;
    e1 = e1 || (s.moe && s.E == 1);
  }
  for (int64_t n : {1, 8, 576, 2049}) CHECK(ns.count(n) == 1);
  CHECK(k_half_tile);
  CHECK(k32);
  CHECK(empty);
  CHECK(one);
  CHECK(hundreds);
  CHECK(e1);
}

TEST_CASE("shapes catalogue: invalid entries are rejected by name") {
  CHECK_NOTHROW(parse_catalogue(with_gemm(R"({"name": "ok", "N": 1, "K": 32})"), "t"));
  auto message = [](const std::string& text) {
    try {
      parse_catalogue(text, "t.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message(with_gemm(R"({"name": "k48", "N": 4, "K": 48})")).find("k48") != std::string::npos);
  CHECK(message(with_gemm(R"({"name": "k48", "N": 4, "K": 48})")).find("K % 32") != std::string::npos);
  CHECK(message(with_gemm(R"({"name": "n0", "N": 0, "K": 64})")).find("N >= 1") != std::string::npos);
  CHECK(message(with_gemm(R"({"name": "tk", "N": 4, "K": 64, "experts": 4, "top_k": 5})")).find("top_k") !=
        std::string::npos);
  CHECK(message(with_gemm(R"({"name": "nok", "N": 4})")).find("\"K\"") != std::string::npos);
  CHECK(message(with_gemm(R"({"name": "r", "N": 4, "K": 64, "experts": 4, "top_k": 1, "routings": ["zipf"]})"))
            .find("unknown routing") != std::string::npos);
  CHECK(message(with_gemm(R"({"name": "a/b", "N": 4, "K": 64})")).find("'/'") != std::string::npos);
  CHECK(message("{").find("not valid JSON") != std::string::npos);
  CHECK(message(R"({"schema": "other", "models": []})").find("schema") != std::string::npos);
}

TEST_CASE("random shapes are seeded and valid") {
  const RandomRecipe& r = catalogue().random;
  const auto a = random_shapes(r, 7, 20), b = random_shapes(r, 7, 20), c = random_shapes(r, 8, 20);
  REQUIRE(a.size() == 20);
  bool differ = false, any_moe = false;
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK((a[i].N == b[i].N && a[i].K == b[i].K && a[i].E == b[i].E && a[i].top_k == b[i].top_k));
    differ = differ || a[i].N != c[i].N || a[i].K != c[i].K;
    any_moe = any_moe || a[i].moe;
    CHECK_NOTHROW(validate_shape(a[i]));
    CHECK((a[i].N >= r.n_min && a[i].N <= r.n_max && a[i].K >= 32 * r.kb_min && a[i].K <= 32 * r.kb_max));
  }
  CHECK(differ);
  CHECK(any_moe);
  CHECK(derive_seed(1, "a") == derive_seed(1, "a"));
  CHECK(derive_seed(1, "a") != derive_seed(1, "b"));
  CHECK(derive_seed(1, "a") != derive_seed(2, "a"));
}

TEST_CASE("routing: offsets are valid and each mode does what it says") {
  for (Routing r : {Routing::realistic, Routing::uniform, Routing::empty_edges, Routing::one_first, Routing::one_last,
                    Routing::all_empty})
    for (int64_t E : {1, 2, 3, 64, 512})
      for (int64_t T : {0, 1, 7, 100}) {
        const int top_k = static_cast<int>(std::min<int64_t>(E, 10));
        const RoutingPlan p = make_routing(r, T, top_k, E, 42);
        REQUIRE(p.offsets.size() == size_t(E + 1));
        CHECK(p.offsets.front() == 0);
        CHECK(p.offsets.back() == p.total_rows);
        for (int64_t e = 0; e < E; ++e) {
          CHECK(p.rows_of(e) >= 0);
          if (r == Routing::realistic || r == Routing::uniform) CHECK(p.rows_of(e) <= T);  // distinct per token
        }
        if (r == Routing::all_empty) CHECK(p.total_rows == 0);
        if (r != Routing::all_empty && r != Routing::empty_edges) CHECK(p.total_rows == T * top_k);
        if (r == Routing::one_first) CHECK(p.rows_of(0) == p.total_rows);
        if (r == Routing::one_last) CHECK(p.rows_of(E - 1) == p.total_rows);
        if (r == Routing::empty_edges && E >= 4) {
          CHECK(p.rows_of(0) == 0);
          CHECK(p.rows_of(E - 1) == 0);
          CHECK(p.rows_of(2) == 0);
        }
        if (r == Routing::uniform && T > 0)
          for (int64_t e = 0; e < E; ++e) CHECK(std::abs(p.rows_of(e) - p.total_rows / E) <= 1);
        for (int64_t row = 0; row < p.total_rows; row += 13) {
          const int64_t e = p.expert_of_row(row);
          CHECK((p.offsets[size_t(e)] <= row && row < p.offsets[size_t(e) + 1]));
        }
      }
  const RoutingPlan a = make_routing(Routing::realistic, 64, 10, 512, 5), b = make_routing(Routing::realistic, 64, 10, 512, 5);
  CHECK(a.offsets == b.offsets);
  CHECK(a.active_experts < 512);  // 640 picks over 512 skewed experts leave some empty
  CHECK(a.max_rows > 640 / 512);  // and load some unevenly
  CHECK_THROWS_AS(make_routing(Routing::realistic, 1, 5, 4, 1), Error);
}

TEST_CASE("tolerance: derived constants per dtype") {
  const Tolerance h = Tolerance::derive(Precision::f16, 2048), b = Tolerance::derive(Precision::bf16, 2048);
  CHECK(h.u_w == 0x1p-11);
  CHECK(b.u_w == 0x1p-8);
  CHECK(h.gamma == doctest::Approx(2049 * 0x1p-23).epsilon(1e-3));
  // monotone in every input
  CHECK(h.elem(2, 10, 5) > h.elem(1, 10, 5));
  CHECK(h.elem(1, 11, 5) > h.elem(1, 10, 5));
  CHECK(b.elem(1, 10, 5) > h.elem(1, 10, 5));
  CHECK(h.ref_up_from_cublas(1.0, 10, 5) > 1.0);
  CHECK_THROWS_AS(Tolerance::derive(Precision::f32, 64), Error);
  CHECK(round_to(Precision::f16, 1.0f + 0x1p-12f) == 1.0f);
  CHECK(round_to(Precision::bf16, 1.0f + 0x1p-7f) == 1.0f + 0x1p-7f);
}

TEST_CASE("tolerance: two weight roundings (tcw's pair table) are covered, and need the wider u_w") {
  // w~ = rn(rn(cb) * dec) for fp16-normal cb and E4M4 dec: |w~ - w| <= u_w |w| + eta_w with the
  // derived u_w of derive(.., 2); some weights exceed the one-rounding bound, so it is needed.
  for (Precision p : {Precision::f16, Precision::bf16}) {
    const Tolerance one = Tolerance::derive(p, 64), two = Tolerance::derive(p, 64, 2);
    const double u = rounding_of(p).u;
    CHECK(one.u_w == u);
    CHECK(two.u_w == (1 + u) * (1 + u) - 1);
    CHECK(two.eta_w == one.eta_w);
    Rng rng(77);
    int64_t beyond_one = 0;
    for (int i = 0; i < 200000; ++i) {
      const float cb = float((rng.uniform() * 2 - 1) * std::ldexp(1.0, -int(rng.below(8))));
      if (std::fabs(cb) < 0x1p-14f) continue;  // TiledView::half_cb: no fp16 subnormals in the codebook
      const float dec = e4m4_decode(uint8_t(1 + rng.below(255)));
      const double w = double(cb) * dec;
      const double got = round_to(p, round_to(p, cb) * dec);  // the product of two 16-bit values is exact in fp32
      const double err = std::fabs(got - w);
      CHECK(err <= two.u_w * std::fabs(w) + two.eta_w);
      beyond_one += err > one.u_w * std::fabs(w) + one.eta_w;
    }
    CHECK(beyond_one > 0);
  }
  CHECK_THROWS_AS(Tolerance::derive(Precision::f16, 64, 3), Error);
}

namespace {
// A software kernel on random data: W' rounded to the act dtype (or not), products accumulated in
// fp32 in a shuffled order or in split-K chunks, C rounded. Returns (max err/tol, nmse/nmse_tol).
struct SimResult {
  double max_ratio, nmse_ratio;
};
enum class Bug { none, double_rounding_bf16, drop_one_block, fp16_accumulate };
SimResult simulate(Precision p, int64_t K, int rows, Bug bug, uint64_t seed) {
  const HostWeights w = make_random_weights(4, 1, 16, K, seed, 2);
  const std::vector<float> A = make_activations(rows, K, p, seed + 1, 2);
  const Tolerance tol = Tolerance::derive(p, K);
  std::vector<float> row(static_cast<size_t>(K));
  Checker ch("sim", false);
  Rng rng(seed + 2);
  for (int64_t n = 0; n < w.N; ++n) {
    dequantize_row_ref(w.view(), 0, n, row.data());
    for (int m = 0; m < rows; ++m) {
      const float* a = A.data() + m * K;
      double S = 0, Q = 0, SA = 0;
      for (int64_t k = 0; k < K; ++k) {
        S += std::fabs(double(a[k]) * row[size_t(k)]);
        Q += double(a[k]) * row[size_t(k)] * double(a[k]) * row[size_t(k)];
        SA += std::fabs(a[k]);
      }
      const float ref = gemm_element_ref(a, w.view(), 0, n);
      // the kernel
      std::vector<int64_t> order(static_cast<size_t>(K));
      for (int64_t k = 0; k < K; ++k) order[size_t(k)] = k;
      for (int64_t i = K - 1; i > 0; --i) std::swap(order[size_t(i)], order[size_t(rng.below(i + 1))]);
      float acc = 0;
      uint16_t acc_h = 0;
      for (int64_t i = 0; i < K; ++i) {
        const int64_t k = order[size_t(i)];
        if (bug == Bug::drop_one_block && k >= 64 && k < 96) continue;
        float wk = round_to(p, row[size_t(k)]);
        if (bug == Bug::double_rounding_bf16) wk = round_to(Precision::bf16, row[size_t(k)]);
        const float prod = a[k] * wk;
        if (bug == Bug::fp16_accumulate) acc_h = bits_of(Precision::f16, from_bits(Precision::f16, acc_h) + prod);
        else acc += prod;
      }
      if (bug == Bug::fp16_accumulate) acc = from_bits(Precision::f16, acc_h);
      const float got = round_to(p, acc);
      ch.add(m, n, got, ref, tol.elem(std::fabs(ref), S, SA), tol.variance(std::fabs(ref), S, Q, SA));
    }
  }
  const CheckResult r = ch.finish();
  return {r.max_ratio, r.nmse / r.nmse_tol};
}
}  // namespace

TEST_CASE("tolerance: a correct simulated kernel passes and wrong ones fail") {
  for (Precision p : {Precision::f16, Precision::bf16})
    for (int64_t K : {96, 2048}) {
      const SimResult ok = simulate(p, K, 32, Bug::none, 11 + uint64_t(K));
      CHECK(ok.max_ratio <= 1.0);
      CHECK(ok.nmse_ratio <= 1.0);
    }
  // dropping one block of 32 of K = 2048 breaks the NMSE gate at least
  const SimResult drop = simulate(Precision::f16, 2048, 32, Bug::drop_one_block, 3);
  CHECK((drop.max_ratio > 1.0 || drop.nmse_ratio > 1.0));
  // rounding W' to bf16 in an fp16 case is 8x the allowed weight error
  const SimResult dbl = simulate(Precision::f16, 2048, 32, Bug::double_rounding_bf16, 4);
  CHECK(dbl.nmse_ratio > 1.0);
  // accumulating in fp16 instead of fp32
  const SimResult acc = simulate(Precision::f16, 2048, 32, Bug::fp16_accumulate, 5);
  CHECK((acc.max_ratio > 1.0 || acc.nmse_ratio > 1.0));
}

TEST_CASE("gates: NaN and Inf and an all-zero reference fail and the worst elements are kept") {
  Checker c("t", false);
  for (int i = 0; i < 300; ++i) c.add(i, 0, 1.0, 1.0, 0.1, 1e-6);
  CHECK(c.finish().pass());
  Checker nan = c;
  nan.add(5, 5, std::nan(""), 1.0, 0.1);
  const CheckResult rn = nan.finish();
  CHECK(!rn.pass());
  CHECK(rn.nonfinite == 1);
  REQUIRE(!rn.worst.empty());
  CHECK((rn.worst[0].row == 5 && std::isinf(rn.worst[0].ratio)));
  Checker inf("t", false);
  inf.add(0, 0, INFINITY, 1.0, 0.1);
  CHECK(!inf.finish().pass());
  Checker zero("t", false);
  for (int i = 0; i < 10; ++i) zero.add(i, 0, 0.0, 0.0, 0.1);
  CHECK(zero.finish().ref_all_zero);
  CHECK(!zero.finish().pass());
  CHECK(Checker("empty", false).finish().pass());  // nothing to compare (M = 0) passes
  Checker ex("e", true);
  ex.add(0, 0, 1.0, 1.0, 0);
  ex.add(0, 1, -0.0, 0.0, 0);  // +-0 compare equal
  CHECK(ex.finish().pass());
  ex.add(0, 2, 1.0009765625, 1.0, 0);
  CHECK(!ex.finish().pass());
  // over tolerance on one element; worst ordering and merge
  Checker a("m", false), b("m", false);
  for (int i = 0; i < 20; ++i) a.add(i, 0, 1.0 + 0.001 * i, 1.0, 0.1);
  b.add(99, 1, 2.0, 1.0, 0.1);
  a.merge(b);
  const CheckResult rm = a.finish();
  CHECK(rm.failed == 1);
  CHECK(rm.worst.size() == kWorst);
  CHECK(rm.worst[0].row == 99);
  CHECK(rm.worst[1].row == 19);
  // NMSE gate: every element inside its bound but the aggregate far above the variance bound
  Checker agg("n", false);
  for (int i = 0; i < 1000; ++i) agg.add(i, 0, 1.05, 1.0, 0.1, 1e-8);
  const CheckResult ra = agg.finish();
  CHECK(ra.failed == 0);
  CHECK(ra.nmse_gated);
  CHECK(!ra.pass());
  CHECK(check_from_json(to_json(ra)).nmse == doctest::Approx(ra.nmse));
}

TEST_CASE("sampling: edges and the N tail are always in the sample") {
  CHECK(full_reference(16, 4096, 4096));
  CHECK(!full_reference(1024, 57344, 8192));
  const int64_t rows = 700, N = 2049;
  const std::vector<int64_t> offsets = {0, 0, 300, 300, 700};
  const auto el = select_elements(rows, N, offsets, 512, 9);
  CHECK(std::is_sorted(el.begin(), el.end()));
  CHECK(std::adjacent_find(el.begin(), el.end()) == el.end());
  auto has = [&](int64_t r, int64_t c) { return std::binary_search(el.begin(), el.end(), Element{r, c}); };
  for (int64_t r : {int64_t(0), int64_t(1), rows - 2, rows - 1})
    for (int64_t c : {int64_t(0), int64_t(127), int64_t(128), N - 1, int64_t(2048)}) CHECK(has(r, c));
  for (int64_t r : {299, 300}) CHECK((has(r, 0) && has(r, N - 1)));  // expert boundaries
  for (const auto& e : el) CHECK((e.row >= 0 && e.row < rows && e.col >= 0 && e.col < N));
  const auto tail = edge_cols(N);
  CHECK(std::count_if(tail.begin(), tail.end(), [&](int64_t c) { return c >= 2048; }) == 1);
  const auto t2 = edge_cols(200);
  for (int64_t c = 128; c < 200; ++c) CHECK(std::binary_search(t2.begin(), t2.end(), c));
  CHECK(select_elements(0, 10, {}, 100, 1).empty());
  CHECK(select_elements(1, 1, {}, 100, 1).size() == 1);
}

TEST_CASE("case names round trip and malformed names are rejected") {
  CaseSpec d;
  d.family = Family::dense, d.label = "llama-3-8b.mlp.down", d.N = 4096, d.K = 14336, d.M = 16, d.bits = 3;
  d.dtype = Precision::bf16, d.kernel = "mma";
  CHECK(d.name() == "dense/llama-3-8b.mlp.down/N4096.K14336/M16/k3/bf16/mma");
  CHECK(parse_case_name(d.name()) == d);
  CaseSpec m;
  m.family = Family::moe, m.label = "qwen3-coder-next.mlp.experts.gate_up", m.E = 512, m.N = 1024, m.K = 2048;
  m.top_k = 10, m.routing = Routing::one_last, m.M = 33, m.bits = 5, m.dtype = Precision::f16, m.kernel = "grouped_mma";
  CHECK(parse_case_name(m.name()) == m);
  CaseSpec q;
  q.family = Family::dequant, q.label = "adversarial.k96", q.E = 1, q.N = 256, q.K = 96, q.bits = 2;
  q.dtype = Precision::f32, q.kernel = "fast";
  CHECK(parse_case_name(q.name()) == q);
  CHECK(d.input_seed(1) != d.input_seed(2));
  CaseSpec d2 = d;
  d2.kernel = "v0";
  CHECK(d2.input_seed(1) == d.input_seed(1));  // all kernels of a group see the same inputs
  CHECK(d2.weight_seed(1) == d.weight_seed(1));
  for (const char* bad : {"", "dense", "sparse/a/N1.K32/M1/k4/f16/v0", "dense/a/N1.K48/M1/k4/f16/v0",
                          "dense/a/N1.K32/M1/k6/f16/v0", "dense/a/N1.K32/M1/k4/f32/v0", "dense/a/N1.K32/M1/k4/f16/fast",
                          "dense/a/N01.K32/M1/k4/f16/v0", "moe/a/E4.N1.K32.top5.realistic/T1/k4/f16/v0",
                          "moe/a/E4.N1.K32.top1.zipf/T1/k4/f16/v0", "dense/a/N1.K32/M-1/k4/f16/v0"})
    CHECK_THROWS_AS(parse_case_name(bad), Error);
}

TEST_CASE("plan: quick covers every block shape with every k and dtype and the kernels flag filters") {
  PlanOptions opt;
  const auto cases = plan_cases(catalogue(), opt);
  REQUIRE(!cases.empty());
  std::set<std::string> names;
  std::map<std::string, std::set<std::pair<int, int>>> combos_per_shape;
  std::set<int64_t> gemv_m;
  for (const auto& c : cases) {
    CHECK(names.insert(c.name()).second);
    CHECK(parse_case_name(c.name()) == c);
    if (c.family != Family::dequant) combos_per_shape[c.label].insert({c.bits, int(c.dtype)});
    if (c.family == Family::dense && c.kernel == "gemv") gemv_m.insert(c.M);
  }
  for (const auto& s : catalogue().all_shapes())
    if (s.block && !s.moe) CHECK_MESSAGE(combos_per_shape[s.label()].size() == 8, s.label());
  for (int64_t m : {1, 2, 3, 4}) CHECK(gemv_m.count(m) == 1);
  MESSAGE("quick plan: " << cases.size() << " cases");
  opt.kernels = {"moe.v0", "dequant"};
  for (const auto& c : plan_cases(catalogue(), opt))
    CHECK(((c.family == Family::moe && c.kernel == "v0") || c.family == Family::dequant));
  opt.kernels = {"mmma"};
  CHECK_THROWS_AS(plan_cases(catalogue(), opt), Error);
  opt.kernels = {};
  opt.filter = "llama-3-70b.*M1/k";
  for (const auto& c : plan_cases(catalogue(), opt)) CHECK(c.label.find("llama-3-70b") == 0);
  opt.filter = "(";
  CHECK_THROWS_AS(plan_cases(catalogue(), opt), Error);
  PlanOptions full;
  full.full = true;
  const size_t nfull = plan_cases(catalogue(), full).size();
  MESSAGE("full plan: " << nfull << " cases");
  CHECK(nfull > cases.size());
}

TEST_CASE("plan: --m replaces the sweep's M and MoE tokens, and a bad list is refused by item") {
  CHECK(parse_m_list("160,288,0") == std::vector<int64_t>{160, 288, 0});
  CHECK_THROWS_WITH_AS(parse_m_list("160,,288"), doctest::Contains("\"\""), Error);
  CHECK_THROWS_WITH_AS(parse_m_list("160,2x"), doctest::Contains("\"2x\""), Error);
  CHECK_THROWS_WITH_AS(parse_m_list("-1"), doctest::Contains("\"-1\""), Error);
  CHECK_THROWS_AS(parse_m_list(""), Error);
  CHECK_THROWS_WITH_AS(parse_m_list("160,288,"), doctest::Contains("\"\""), Error);  // a trailing comma
  CHECK_THROWS_WITH_AS(parse_m_list(",160"), doctest::Contains("\"\""), Error);
  CHECK_THROWS_WITH_AS(parse_m_list("160, 288"), doctest::Contains("\" 288\""), Error);
  CHECK_THROWS_WITH_AS(parse_m_list("160,288,160"), doctest::Contains("listed twice"), Error);
  CHECK_THROWS_AS(parse_m_list("1048577"), Error);
  CHECK(parse_m_list("1048576") == std::vector<int64_t>{1048576});
  PlanOptions opt;
  opt.full = true;
  opt.kernels = {"dense.tcw", "moe.grouped_tcw"};
  opt.m = {160, 288};
  const auto cases = plan_cases(catalogue(), opt);
  std::set<int64_t> dense_m, moe_m;
  for (const auto& c : cases) (c.family == Family::dense ? dense_m : moe_m).insert(c.M);
  CHECK(dense_m == std::set<int64_t>{160, 288});
  CHECK(moe_m == std::set<int64_t>{160, 288});
}

TEST_CASE("repro files round trip") {
  CaseOutcome o;
  o.spec = parse_case_name("moe/adversarial.experts.empty/E64.N512.K2048.top4.empty_edges/T33/k4/bf16/grouped_mma");
  o.status = "fail";
  Checker ch("cublas", false);
  ch.add(3, 4, 1.5, 1.0, 0.1);
  o.checks.push_back(ch.finish());
  const nlohmann::json j = outcome_json(o, 1234);
  CHECK(j.at("checks")[0].at("worst")[0].at("row") == 3);
  const std::string path = "test_verify_repro.json";
  {
    std::ofstream f(path);
    f << j.dump(2);
  }
  const Repro r = read_repro(path);
  CHECK(r.spec == o.spec);
  CHECK(r.master_seed == 1234);
  CHECK(repro_filename(o.spec).find('/') == std::string::npos);
  std::remove(path.c_str());
  CHECK_THROWS_AS(read_repro("no/such/file.json"), Error);
}

TEST_CASE("weights: generated bytes follow the format and do not depend on the thread count") {
  for (int bits : {2, 5}) {
    const HostWeights a = make_random_weights(bits, 2, 33, 96, 77, 1), b = make_random_weights(bits, 2, 33, 96, 77, 3);
    CHECK(a.packed == b.packed);
    CHECK(a.absmax == b.absmax);
    CHECK(a.codebook == b.codebook);
    CHECK(std::is_sorted(a.codebook.begin(), a.codebook.end()));
    // padding block (kb = 3 of K = 96) is zero
    for (int64_t e = 0; e < 2; ++e)
      for (int64_t n = 0; n < 33; ++n) {
        CHECK(a.view().absmax_at(e, n, 3) == 0);
        const uint32_t* words = a.packed.data() + e * a.view().expert_words() + tiled_word_offset(n, 3, 0, 33, bits);
        for (int b2 = 0; b2 < bits; ++b2) CHECK(words[b2] == 0u);
      }
    // |W'| from the abs codebook equals |W'|
    std::vector<float> w(size_t(2 * 33 * 96)), wa(w.size());
    dequantize_ref(a.view(), w.data(), 1);
    dequantize_ref(a.abs_view(), wa.data(), 1);
    for (size_t i = 0; i < w.size(); ++i) CHECK(wa[i] == std::fabs(w[i]));
    const HostWeights x = make_exact_weights_parallel(bits, 3, 1500, 64, 5, 1),
                      y = make_exact_weights_parallel(bits, 3, 1500, 64, 5, 4);
    CHECK(x.packed == y.packed);
    CHECK(x.absmax == y.absmax);
    for (uint8_t c : x.absmax) CHECK((c == 0 || c == 0xB0 || c == 0xC0));
  }
  const auto a1 = make_activations(5, 64, Precision::bf16, 3, 1), a2 = make_activations(5, 64, Precision::bf16, 3, 2);
  CHECK(a1 == a2);
  for (float v : a1) CHECK(round_to(Precision::bf16, v) == v);
}

TEST_CASE("--no-cublas: dequant_cublas cases are skipped, the plan and its shards stay the same") {
  PlanOptions opt;
  const std::vector<CaseSpec> cases = plan_cases(catalogue(), opt);
  size_t skipped = 0, dequant_cublas = 0;
  for (const CaseSpec& c : cases) {
    CHECK(skip_reason(c, false).empty());
    const bool is_dc = c.family == Family::dense && c.kernel == "dequant_cublas";
    dequant_cublas += is_dc;
    const std::string why = skip_reason(c, true);
    skipped += !why.empty();
    CHECK(why.empty() == !is_dc);
    if (!why.empty()) CHECK(why.find("--no-cublas") != std::string::npos);
  }
  CHECK(dequant_cublas > 0);
  CHECK(skipped == dequant_cublas);
  // automatic and the other dense kernels still run
  CHECK(skip_reason(parse_case_name("dense/adversarial.n2049/N2049.K2048/M33/k3/f16/automatic"), true).empty());
  CHECK(skip_reason(parse_case_name("dense/adversarial.n2049/N2049.K2048/M33/k3/f16/mma"), true).empty());
}

TEST_CASE("--no-cublas: a skipped check passes, says why and round trips through JSON") {
  const CheckResult c = CheckResult::skip("exact_cublas", "--no-cublas");
  CHECK(c.pass());
  CHECK(c.summary() == "exact_cublas: skipped (--no-cublas)");
  const nlohmann::json j = to_json(c);
  CHECK(j.at("skipped") == "--no-cublas");
  CHECK(check_from_json(j).skipped == "--no-cublas");
  CHECK(to_json(Checker("cpu", false).finish()).contains("skipped") == false);
}

TEST_CASE("--no-cublas: S and Q on the CPU match float64 sums over the dequantized weights") {
  const int64_t E = 3, N = 37, K = 96;
  const HostWeights w = make_random_weights(3, E, N, K, 11, 1);
  const std::vector<int64_t> offsets = {0, 4, 4, 9};  // expert 1 empty
  const int64_t rows = offsets.back();
  const std::vector<float> A = make_activations(rows, K, Precision::f16, 5, 1);
  std::vector<float> W(size_t(E * N * K));
  dequantize_ref(w.view(), W.data(), 1);
  std::vector<float> S(size_t(rows * N), -1.0f), Q(S.size(), -1.0f), S3(S.size(), -1.0f), Q3(S.size(), -1.0f);
  stats_ref(A.data(), offsets, w.view(), S.data(), Q.data(), 1);
  stats_ref(A.data(), offsets, w.view(), S3.data(), Q3.data(), 3);
  CHECK(S == S3);
  CHECK(Q == Q3);
  for (int64_t e = 0; e < E; ++e)
    for (int64_t r = offsets[size_t(e)]; r < offsets[size_t(e + 1)]; ++r)
      for (int64_t n = 0; n < N; ++n) {
        double s = 0, q = 0;
        for (int64_t k = 0; k < K; ++k) {
          const double p = double(A[size_t(r * K + k)]) * W[size_t((e * N + n) * K + k)];
          s += std::fabs(p);
          q += p * p;
        }
        const size_t i = size_t(r * N + n);
        CHECK(S[i] == doctest::Approx(s).epsilon(1e-6));
        CHECK(Q[i] == doctest::Approx(q).epsilon(1e-6));
        CHECK(S[i] > 0);
        const ElementStats one = stats_element_ref(A.data() + r * K, w.view(), e, n);
        CHECK(one.S == S[i]);
        CHECK(one.Q == Q[i]);
      }
}

TEST_CASE("--shard and --range select the same cases a single run would, in order") {
  PlanOptions opt;
  const std::vector<CaseSpec> all = plan_cases(catalogue(), opt);
  REQUIRE(all.size() > 100);
  auto names = [](const std::vector<CaseSpec>& v) {
    std::vector<std::string> n;
    for (const CaseSpec& c : v) n.push_back(c.name());
    return n;
  };
  CHECK(names(select_cases(all, "", "")) == names(all));
  // shard 1/3 is positions 1, 4, 7, ...; ranges 0:5 and 5: of it rebuild it
  const std::vector<CaseSpec> shard = select_cases(all, "1/3", "");
  REQUIRE(shard.size() == (all.size() - 1 + 2) / 3);
  CHECK(shard[2].name() == all[7].name());
  std::vector<std::string> joined = names(select_cases(all, "1/3", "0:5"));
  CHECK(joined.size() == 5);
  for (const std::string& n : names(select_cases(all, "1/3", "5:"))) joined.push_back(n);
  CHECK(joined == names(shard));
  CHECK(select_cases(all, "", "3:3").empty());
  CHECK(select_cases(all, "", "10:999999").size() == all.size() - 10);
  CHECK(select_cases(all, "", "999999:").empty());
  CHECK(select_cases(all, "0/1", ":4").size() == 4);
  for (const char* bad : {"5", "a:b", "7:3", "-1:2", "1:2:3", " 1:2"}) CHECK_THROWS_AS(select_cases(all, "", bad), Error);
  for (const char* bad : {"3/3", "1/0", "x", "1/2/3"}) CHECK_THROWS_AS(select_cases(all, bad, ""), Error);
}
