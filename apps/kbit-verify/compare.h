// Gate evaluation: per element |got - ref| <= tol, NMSE <= tol_nmse, no NaN/Inf, not an all-zero
// reference; keeps the worst elements for the report and the repro file (STYLE §5).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kbit::verify {

struct ElementReport {
  int64_t row = 0, col = 0;
  double got = 0, ref = 0, tol = 0;
  double ratio = 0;  // |got - ref| / tol; +inf when the tolerance is 0 and they differ or got is NaN/Inf
};

struct CheckResult {
  std::string name;          // "cpu", "cublas", "cublas_rerun", "cpu_rerun", "exact_cpu", "exact_cublas", "bits"
  bool exact = false;        // tolerance 0 (bit-for-bit)
  int64_t compared = 0, failed = 0, nonfinite = 0;
  bool ref_all_zero = false;
  double max_ratio = 0;
  double nmse = 0, nmse_tol = 0;
  bool nmse_gated = false;
  std::vector<ElementReport> worst;  // up to kWorst, largest ratio first
  std::string error;                 // set when the check could not run (a CUDA or cuBLAS error)
  std::string skipped;               // set when the check was left out on purpose ("--no-cublas"): passes

  static CheckResult skip(std::string name, std::string why);

  bool pass() const;
  std::string summary() const;       // one line
};

inline constexpr size_t kWorst = 10;

// Accumulates one check. add() is not thread-safe; merge() combines per-thread checkers.
class Checker {
 public:
  Checker(std::string name, bool exact) { r_.name = std::move(name); r_.exact = exact; }
  // var: this element's NMSE variance bound (ignored when exact).
  void add(int64_t row, int64_t col, double got, double ref, double tol, double var = 0.0);
  // A difference the value compare cannot see (e.g. -0 vs +0 where bits must match): a failure.
  void add_mismatch(int64_t row, int64_t col, double got, double ref);
  void merge(const Checker& other);
  // nmse_scale multiplies the summed variance bound (4 for the cuBLAS comparison, tolerance.h).
  CheckResult finish(double nmse_scale = 1.0) const;

 private:
  void keep_worst(const ElementReport& e);
  CheckResult r_;
  double err2_ = 0, ref2_ = 0, var_ = 0;
  bool any_nonzero_ref_ = false;
};

nlohmann::json to_json(const CheckResult& c);
CheckResult check_from_json(const nlohmann::json& j);

}  // namespace kbit::verify
