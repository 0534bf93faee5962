// Tolerances of kbit-verify, DERIVED from the rounding steps FORMAT §6 allows; never tuned.
// docs/kbit-verify.md repeats the derivation with the numbers for each dtype.
//
// Notation, for one output element C[m, n]: a_k = A[m, k] as stored in the activation dtype (the
// reference gets exactly these values), w_k = W'[n, k] in fp32 (FORMAT §6), c = sum_k a_k w_k
// exactly, r = the fp32 CPU reference (float64 sum rounded once: |r - c| <= 2^-24 |c| + K 2^-53 S),
// S = sum_k |a_k w_k|, Q = sum_k (a_k w_k)^2, SA = sum_k |a_k|.
//
// A correct kernel may (FORMAT §6):
//   1. round W' to the activation dtype once:   w~ = w (1 + d) + e, |d| <= u_w, |e| <= eta_w
//      (u = unit roundoff 2^-11 fp16 / 2^-8 bf16, eta = half the smallest subnormal, the
//      absolute error below the normal range). A kernel that keeps W' in fp32 is inside this too.
//   2. multiply a_k w~_k (exact in fp32 for fp16 x fp16 and bf16 x bf16; one fp32 rounding if
//      W' stays fp32) and accumulate in fp32 in ANY order, split-K included: at most K - 1
//      additions on any path of the summation tree, plus the product and one fp32 epilogue step,
//      so n = K + 1 roundings of relative size u_acc = 2^-23. 2^-23, not 2^-24, because tensor
//      cores align and truncate instead of rounding to nearest (Fasi, Higham, Mikaitis, Pranesh,
//      "Numerical behavior of NVIDIA tensor cores", PeerJ CS 2021).
//      Deterministic (worst case): |error| <= gamma_n * sum|a w~|, gamma_n = n u / (1 - n u).
//   3. round C to the activation dtype once:    |C - s| <= u_c |s| + eta_c.
//
// Per element (the WORST CASE bound; any correct kernel is inside it, whatever the data):
//   D       = u_w S + eta_w SA + gamma_n ((1 + u_w) S + eta_w SA)
//   tol     = u_c |r| + (1 + u_c) (D + 2^-23 |r| + 2^-36 S) + eta_c
// (2^-23 |r| + 2^-36 S covers |r - c| for K <= 2^17; |s| <= |r| + D + |r - c| gives the (1 + u_c).)
// S is itself computed (CPU in float64, or cuBLAS fp32 on |A| and |W'|, all terms positive): it is
// used inflated by (1 + 2 gamma_n) >= 1 / (1 - gamma_n), an upper bound of the true S.
//
// Aggregate (NMSE = sum (C - r)^2 / sum r^2), the PROBABILISTIC bound: model every rounding error
// as independent with mean zero and |error| <= its bound, so its variance is at most bound^2 (the
// two-point worst case; rounding to nearest of smooth data has about bound^2 / 3). Then
//   E[(C - r)^2] <= v = u_w^2 Q + eta_w^2 SA^2 + n u_acc^2 S^2 + u_c^2 r^2 + eta_c^2 + (2^-23 r)^2
// (the accumulation term is the sqrt(K) model of Higham and Mary, "A new approach to
// probabilistic rounding error analysis", SISC 2019: n errors each <= u_acc |partial sum| <= u_acc S),
// and tol_nmse = sum v / sum r^2. The NMSE gate applies from kMinNmseElements compared elements
// on (below that the per-element bound alone decides).
//
// Against cuBLAS (both results obey the bounds above with respect to the same r):
//   |C - C_cublas| <= tol(r_up) * 2,  (C - C_cub)^2 <= 2 e_C^2 + 2 e_cub^2 so tol_nmse x 4,
// with r_up = (|C_cub| + tol without its u_c |r| term) / (1 - u_c) >= |r|.
// Exact mode (reference/exact_mode.h): every partial sum is exact, the tolerance is 0: the kernel
// must return the CPU reference rounded to the dtype (±0 compare equal).
#pragma once

#include <cstdint>

namespace kbit::verify {

enum class Precision { f16, bf16, f32 };
const char* precision_name(Precision p);           // "f16", "bf16", "f32"
Precision parse_precision(const char* s);           // throws kbit::Error
int precision_bytes(Precision p);

// Unit roundoff u (2^-p for p significant bits incl. the implicit one... i.e. half an ulp of 1)
// and eta, half the smallest positive subnormal.
struct Rounding {
  double u;
  double eta;
};
Rounding rounding_of(Precision p);

// x rounded to the dtype (round to nearest even), as the float it represents.
float round_to(Precision p, float x);
// The 16-bit pattern of x in the dtype (f16/bf16 only).
uint16_t bits_of(Precision p, float x);
float from_bits(Precision p, uint16_t h);

inline constexpr double kAccumulationUnit = 0x1p-23;  // fp32 accumulation, truncating tensor cores
inline constexpr int64_t kMinNmseElements = 256;

struct Tolerance {
  Precision act = Precision::f16;
  int64_t K = 0;
  double u_w = 0, eta_w = 0, u_c = 0, eta_c = 0;
  double n_acc = 0;  // K + 1
  double gamma = 0;  // gamma_n with u_acc

  // w_roundings: how many times the kernel rounds W' to the dtype (gpu::weight_roundings): 1, or
  // 2 for rn(rn(cb) * dec) with every cb_stored 0 or fp16-normal, where rn(cb) = cb (1 + d1) and
  // the product is exact in fp32, so w~ = w (1 + d1)(1 + d2) + e: u_w = (1 + u)^2 - 1, eta_w = eta.
  static Tolerance derive(Precision act, int64_t K, int w_roundings = 1);
  // Upper bound of the true S from a computed one.
  double s_up(double S) const { return S * (1.0 + 2.0 * gamma); }
  double elem(double ref_abs, double S, double SA) const;
  double variance(double ref_abs, double S, double Q, double SA) const;
  // |r| bound from a cuBLAS result on W' rounded to the activation dtype.
  double ref_up_from_cublas(double cub_abs, double S, double SA) const;
};

}  // namespace kbit::verify
