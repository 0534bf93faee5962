#include "compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <nlohmann/json.hpp>

#include "tolerance.h"

namespace kbit::verify {

void Checker::keep_worst(const ElementReport& e) {
  if (r_.worst.size() == kWorst && !(e.ratio > r_.worst.back().ratio)) return;
  const auto it = std::find_if(r_.worst.begin(), r_.worst.end(),
                               [&](const ElementReport& w) { return e.ratio > w.ratio; });
  r_.worst.insert(it, e);
  if (r_.worst.size() > kWorst) r_.worst.pop_back();
}

void Checker::add(int64_t row, int64_t col, double got, double ref, double tol, double var) {
  ++r_.compared;
  ElementReport e{row, col, got, ref, tol, 0.0};
  const double inf = std::numeric_limits<double>::infinity();
  if (!std::isfinite(got) || !std::isfinite(ref)) {
    ++r_.nonfinite;
    ++r_.failed;
    e.ratio = inf;
  } else {
    const double diff = std::fabs(got - ref);
    e.ratio = tol > 0 ? diff / tol : (diff > 0 ? inf : 0.0);
    if (r_.exact ? got != ref : diff > tol) ++r_.failed;
    err2_ += diff * diff;
    ref2_ += ref * ref;
    var_ += var;
    any_nonzero_ref_ = any_nonzero_ref_ || ref != 0.0;
  }
  r_.max_ratio = std::max(r_.max_ratio, e.ratio);
  if (e.ratio > 0 || r_.worst.size() < kWorst) keep_worst(e);
}

void Checker::add_mismatch(int64_t row, int64_t col, double got, double ref) {
  ++r_.compared;
  ++r_.failed;
  ElementReport e{row, col, got, ref, 0.0, std::numeric_limits<double>::infinity()};
  r_.max_ratio = e.ratio;
  ref2_ += ref * ref;
  any_nonzero_ref_ = any_nonzero_ref_ || ref != 0.0;
  keep_worst(e);
}

void Checker::merge(const Checker& o) {
  r_.compared += o.r_.compared;
  r_.failed += o.r_.failed;
  r_.nonfinite += o.r_.nonfinite;
  r_.max_ratio = std::max(r_.max_ratio, o.r_.max_ratio);
  err2_ += o.err2_;
  ref2_ += o.ref2_;
  var_ += o.var_;
  any_nonzero_ref_ = any_nonzero_ref_ || o.any_nonzero_ref_;
  for (const auto& e : o.r_.worst) keep_worst(e);
}

CheckResult Checker::finish(double nmse_scale) const {
  CheckResult c = r_;
  c.ref_all_zero = c.compared > 0 && !any_nonzero_ref_;
  c.nmse = ref2_ > 0 ? err2_ / ref2_ : (err2_ > 0 ? std::numeric_limits<double>::infinity() : 0.0);
  c.nmse_tol = c.exact ? 0.0 : (ref2_ > 0 ? nmse_scale * var_ / ref2_ : 0.0);
  c.nmse_gated = !c.exact && c.compared - c.nonfinite >= kMinNmseElements;
  return c;
}

CheckResult CheckResult::skip(std::string name, std::string why) {
  CheckResult c;
  c.name = std::move(name);
  c.skipped = std::move(why);
  return c;
}

bool CheckResult::pass() const {
  if (!error.empty() || failed > 0 || nonfinite > 0 || ref_all_zero) return false;
  if (nmse_gated && !(nmse <= nmse_tol)) return false;
  return true;
}

std::string CheckResult::summary() const {
  char buf[512];
  if (!skipped.empty()) {
    std::snprintf(buf, sizeof buf, "%s: skipped (%s)", name.c_str(), skipped.c_str());
    return buf;
  }
  if (!error.empty()) {
    std::snprintf(buf, sizeof buf, "%s: ERROR %s", name.c_str(), error.c_str());
    return buf;
  }
  if (exact)
    std::snprintf(buf, sizeof buf, "%s: %lld/%lld differ%s%s", name.c_str(), (long long)failed, (long long)compared,
                  nonfinite ? " (NaN/Inf)" : "", ref_all_zero ? " (reference all zero)" : "");
  else
    std::snprintf(buf, sizeof buf, "%s: %lld/%lld over tol, max err/tol %.3g, nmse %.3g (tol %.3g%s)%s%s", name.c_str(),
                  (long long)failed, (long long)compared, max_ratio, nmse, nmse_tol, nmse_gated ? "" : ", not gated",
                  nonfinite ? ", NaN/Inf" : "", ref_all_zero ? ", reference all zero" : "");
  return buf;
}

namespace {
// JSON has no Inf/NaN: write them as strings.
nlohmann::json num(double x) {
  if (std::isfinite(x)) return x;
  return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
}
double unnum(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  const std::string s = j.get<std::string>();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  return s == "inf" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
}
}  // namespace

nlohmann::json to_json(const CheckResult& c) {
  nlohmann::json j = {{"name", c.name},         {"pass", c.pass()},        {"exact", c.exact},
                      {"compared", c.compared}, {"failed", c.failed},      {"nonfinite", c.nonfinite},
                      {"ref_all_zero", c.ref_all_zero}, {"max_err_over_tol", num(c.max_ratio)},
                      {"nmse", num(c.nmse)},    {"nmse_tol", num(c.nmse_tol)}, {"nmse_gated", c.nmse_gated}};
  if (!c.error.empty()) j["error"] = c.error;
  if (!c.skipped.empty()) j["skipped"] = c.skipped;
  auto& w = j["worst"] = nlohmann::json::array();
  for (const auto& e : c.worst)
    w.push_back({{"row", e.row}, {"col", e.col}, {"got", num(e.got)}, {"ref", num(e.ref)}, {"tol", num(e.tol)},
                 {"err_over_tol", num(e.ratio)}});
  return j;
}

CheckResult check_from_json(const nlohmann::json& j) {
  CheckResult c;
  c.name = j.at("name").get<std::string>();
  c.exact = j.at("exact").get<bool>();
  c.compared = j.at("compared").get<int64_t>();
  c.failed = j.at("failed").get<int64_t>();
  c.nonfinite = j.at("nonfinite").get<int64_t>();
  c.ref_all_zero = j.at("ref_all_zero").get<bool>();
  c.max_ratio = unnum(j.at("max_err_over_tol"));
  c.nmse = unnum(j.at("nmse"));
  c.nmse_tol = unnum(j.at("nmse_tol"));
  c.nmse_gated = j.at("nmse_gated").get<bool>();
  if (j.contains("error")) c.error = j.at("error").get<std::string>();
  if (j.contains("skipped")) c.skipped = j.at("skipped").get<std::string>();
  for (const auto& w : j.at("worst"))
    c.worst.push_back({w.at("row").get<int64_t>(), w.at("col").get<int64_t>(), unnum(w.at("got")), unnum(w.at("ref")),
                       unnum(w.at("tol")), unnum(w.at("err_over_tol"))});
  return c;
}

}  // namespace kbit::verify
