// Codebooks: the exact nf bit patterns, their meaning (normal quantiles, recomputed here in
// float64 to within 2 ulp), bnf, user files and their errors.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "kbit/codebook.h"
#include "kbit/error.h"
#include "kbit/format.h"

using namespace kbit;

namespace {
// Phi^-1 by bisection on erfc in float64: independent of the stored patterns.
double normal_quantile(double p) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}
int64_t ulp_distance(float a, float b) {
  auto key = [](float f) {
    const int32_t i = std::bit_cast<int32_t>(f);
    return i < 0 ? int64_t(INT32_MIN) - i : int64_t(i);
  };
  return std::llabs(key(a) - key(b));
}
}  // namespace

TEST_CASE("codebook nf: exact FORMAT §2 bit patterns") {
  Codebook cb = builtin_codebook("nf", 4);
  REQUIRE(cb.values.size() == 16);
  CHECK(std::bit_cast<uint32_t>(cb.values[0]) == 0xbf800000u);
  CHECK(std::bit_cast<uint32_t>(cb.values[1]) == 0xbf35233au);
  CHECK(std::bit_cast<uint32_t>(cb.values[7]) == 0xbd2c6c36u);
  CHECK(std::bit_cast<uint32_t>(cb.values[8]) == 0x3d2c6c36u);
  CHECK(std::bit_cast<uint32_t>(builtin_codebook("nf", 2).values[1]) == 0xbe8dd219u);
  CHECK(std::bit_cast<uint32_t>(builtin_codebook("nf", 3).values[3]) == 0xbdd2012au);
  CHECK(std::bit_cast<uint32_t>(builtin_codebook("nf", 5).values[15]) == 0xbc950060u);
}

TEST_CASE("codebook nf: the patterns are the normalised normal quantiles (within 2 ulp)") {
  for (int k = 2; k <= 5; ++k) {
    const Codebook cb = builtin_codebook("nf", k);
    const int n = codebook_size(k);
    const double top = normal_quantile((n - 0.5) / n);
    for (int i = 0; i < n; ++i) {
      const float want = static_cast<float>(normal_quantile((i + 0.5) / n) / top);
      CAPTURE(k); CAPTURE(i);
      CHECK(ulp_distance(cb.values[i], want) <= 2);
      CHECK(cb.values[i] == -cb.values[n - 1 - i]);  // symmetric
    }
    CHECK(cb.values.front() == -1.0f);
    CHECK(cb.values.back() == 1.0f);
  }
}

TEST_CASE("codebook bnf: ascending, symmetric, upstream's levels") {
  for (int k = 2; k <= 5; ++k) {
    const Codebook cb = builtin_codebook("bnf", k);
    CHECK(cb.values.size() == size_t(1 << k));
    for (size_t i = 1; i < cb.values.size(); ++i) CHECK(cb.values[i] > cb.values[i - 1]);
  }
  CHECK(builtin_codebook("bnf", 2).values[3] == 0.6642f);
  CHECK(builtin_codebook("bnf", 4).values[8] == 0.0499f);
}

TEST_CASE("codebook: user files and clear errors") {
  const std::string path = "test_codebook_user.txt";
  {
    std::ofstream f(path);
    f << "# a k=2 codebook\n-1, -0.25\n0.25 1.0\n";
  }
  const Codebook cb = load_codebook_file(path, 2);
  CHECK(cb.values == std::vector<float>{-1.0f, -0.25f, 0.25f, 1.0f});
  CHECK(resolve_codebook(path, 2).values == cb.values);
  CHECK_THROWS_WITH_AS(load_codebook_file(path, 3), doctest::Contains("needs exactly 8"), Error);
  {
    std::ofstream f(path);
    f << "1 0.5 -0.5 -1\n";
  }
  CHECK_THROWS_WITH_AS(load_codebook_file(path, 2), doctest::Contains("ascending"), Error);
  {
    std::ofstream f(path);
    f << "-1 x 0 1\n";
  }
  CHECK_THROWS_WITH_AS(load_codebook_file(path, 2), doctest::Contains("'x' is not a number"), Error);
  std::remove(path.c_str());
  CHECK_THROWS_WITH_AS(load_codebook_file("/nonexistent/cb.txt", 2), doctest::Contains("cannot open"), Error);
  CHECK_THROWS_WITH_AS(builtin_codebook("nf", 6), doctest::Contains("bits must be 2, 3, 4 or 5"), Error);
  CHECK_THROWS_WITH_AS(builtin_codebook("nf8", 4), doctest::Contains("unknown codebook"), Error);
}
