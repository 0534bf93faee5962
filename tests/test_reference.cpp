// fp32 CPU reference: dequantize against the spec formula, GEMM and grouped MoE GEMM in exact
// mode against an independent int64 computation, empty experts, thread-count invariance.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kbit/error.h"
#include "kbit/rng.h"
#include "reference/dequantize.h"
#include "reference/exact_mode.h"
#include "reference/gemm.h"

using namespace kbit;

namespace {
// C * 2^(k-1) in exact integers: W' * 2^(k-1) = (idx - 2^(k-1)) * scale with scale in {0, 1, 2}.
int64_t exact_int_dot(const float* a, const QuantizedTensor& q, int64_t e, int64_t n) {
  const int half = 1 << (q.bits - 1);
  const TiledView v = q.view();
  int64_t acc = 0;
  for (int64_t kk = 0; kk < q.K; ++kk) {
    const uint8_t code = v.absmax_at(e, n, kk / 32);
    const int64_t scale = code == 0 ? 0 : code == 0xB0 ? 1 : 2;
    acc += int64_t(a[kk]) * (v.index_at(e, n, kk) - half) * scale;
  }
  return acc;
}
}  // namespace

TEST_CASE("dequantize_ref: cb_stored[idx] * dec(absmax), element by element") {
  const QuantizedTensor q = make_exact_weights(3, 2, 5, 96, 1);
  std::vector<float> out(size_t(q.E * q.N * q.K), NAN);
  dequantize_ref(q.view(), out.data(), 2);
  for (int64_t e = 0; e < q.E; ++e)
    for (int64_t n = 0; n < q.N; ++n)
      for (int64_t kk = 0; kk < q.K; ++kk) {
        const float want = q.codebook_stored[size_t(q.view().index_at(e, n, kk))] *
                           e4m4_decode(q.view().absmax_at(e, n, kk / 32));
        REQUIRE(out[size_t((e * q.N + n) * q.K + kk)] == want);
      }
}

TEST_CASE("exact mode: gemm_ref equals the int64 computation bit for bit (k = 2..5)") {
  for (int k = 2; k <= 5; ++k)
    for (int64_t N : {1, 8, 37})
      for (int64_t K : {32, 96, 1024}) {
        const int64_t M = 3;
        const QuantizedTensor q = make_exact_weights(k, 1, N, K, uint64_t(k * 7 + N + K));
        const std::vector<float> A = make_exact_activations(M, K, uint64_t(K));
        std::vector<float> C(size_t(M * N), NAN);
        gemm_ref(A.data(), M, q.view(), C.data(), 2);
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            const double want = double(exact_int_dot(&A[size_t(m * K)], q, 0, n)) / double(1 << (k - 1));
            CAPTURE(k); CAPTURE(N); CAPTURE(K);
            REQUIRE(double(C[size_t(m * N + n)]) == want);
            REQUIRE(gemm_element_ref(&A[size_t(m * K)], q.view(), 0, n) == C[size_t(m * N + n)]);
          }
      }
}

TEST_CASE("exact mode: moe_gemm_ref with empty experts, one huge expert and many experts") {
  struct Case { int64_t E; std::vector<int64_t> tokens; };
  std::vector<Case> cases = {{4, {0, 3, 0, 5}}, {3, {0, 0, 17}}, {2, {0, 0}}};
  Case many{200, {}};
  Rng rng(3);
  for (int e = 0; e < 200; ++e) many.tokens.push_back(rng.below(3));
  cases.push_back(many);
  for (const Case& c : cases) {
    const int64_t N = 24, K = 64;
    const int k = 4;
    std::vector<int64_t> offsets = {0};
    for (int64_t t : c.tokens) offsets.push_back(offsets.back() + t);
    const int64_t total = offsets.back();
    const QuantizedTensor q = make_exact_weights(k, c.E, N, K, uint64_t(c.E));
    const std::vector<float> A = make_exact_activations(total, K, 99);
    std::vector<float> C1(size_t(total * N), NAN), C2(size_t(total * N), NAN);
    moe_gemm_ref(A.data(), offsets, q.view(), C1.data(), 1);
    moe_gemm_ref(A.data(), offsets, q.view(), C2.data(), 3);
    CHECK(C1 == C2);
    for (int64_t e = 0; e < c.E; ++e)
      for (int64_t r = offsets[size_t(e)]; r < offsets[size_t(e) + 1]; ++r)
        for (int64_t n = 0; n < N; ++n)
          REQUIRE(double(C1[size_t(r * N + n)]) ==
                  double(exact_int_dot(&A[size_t(r * K)], q, e, n)) / double(1 << (k - 1)));
  }
}

TEST_CASE("reference argument checks and exact-mode bounds") {
  const QuantizedTensor q = make_exact_weights(2, 2, 4, 32, 1);
  std::vector<float> A(32), C(8);
  CHECK_THROWS_WITH_AS(gemm_ref(A.data(), 1, q.view(), C.data()), doctest::Contains("use moe_gemm_ref"), Error);
  CHECK_THROWS_WITH_AS(moe_gemm_ref(A.data(), {0, 1}, q.view(), C.data()), doctest::Contains("E + 1 = 3"), Error);
  CHECK_THROWS_WITH_AS(moe_gemm_ref(A.data(), {0, 1, 0}, q.view(), C.data()), doctest::Contains("decreases"), Error);
  CHECK(exact_mode_fits(5, 65536));
  CHECK_FALSE(exact_mode_fits(5, 1 << 17));
  CHECK_THROWS_AS(make_exact_weights(5, 1, 1, 1 << 17, 1), Error);
}

TEST_CASE("realistic data: gemm_ref matches a float64 dot of the dequantized weights") {
  Rng rng(5);
  const int64_t M = 2, N = 40, K = 2080;
  std::vector<float> w(size_t(N * K)), A(size_t(M * K));
  for (auto& v : w) v = float(rng.normal() * 0.02);
  for (auto& v : A) v = float(rng.normal());
  const QuantizedTensor q = quantize_tensor("w", {w.data(), DType::F32, 1, N, K, false}, builtin_codebook("nf", 4));
  std::vector<float> Wd(w.size()), C(size_t(M * N));
  dequantize_ref(q.view(), Wd.data());
  gemm_ref(A.data(), M, q.view(), C.data());
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0;
      for (int64_t kk = 0; kk < K; ++kk) acc += double(A[size_t(m * K + kk)]) * Wd[size_t(n * K + kk)];
      REQUIRE(C[size_t(m * N + n)] == float(acc));
    }
}
