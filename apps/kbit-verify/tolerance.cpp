#include "tolerance.h"

#include <cmath>
#include <cstring>
#include <string>

#include "kbit/dtype.h"
#include "kbit/error.h"

namespace kbit::verify {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::f16: return "f16";
    case Precision::bf16: return "bf16";
    case Precision::f32: return "f32";
  }
  return "?";
}

Precision parse_precision(const char* s) {
  for (Precision p : {Precision::f16, Precision::bf16, Precision::f32})
    if (std::strcmp(s, precision_name(p)) == 0) return p;
  throw Error(std::string("unknown dtype \"") + s + "\" (valid: f16, bf16, f32)");
}

int precision_bytes(Precision p) { return p == Precision::f32 ? 4 : 2; }

Rounding rounding_of(Precision p) {
  switch (p) {
    case Precision::f16: return {0x1p-11, 0x1p-25};   // 11 significant bits, subnormal step 2^-24
    case Precision::bf16: return {0x1p-8, 0x1p-134};  // 8 significant bits, subnormal step 2^-133
    case Precision::f32: return {0x1p-24, 0x1p-150};
  }
  return {0, 0};
}

uint16_t bits_of(Precision p, float x) { return p == Precision::bf16 ? f32_to_bf16(x) : f32_to_f16(x); }

float from_bits(Precision p, uint16_t h) { return p == Precision::bf16 ? bf16_to_f32(h) : f16_to_f32(h); }

float round_to(Precision p, float x) { return p == Precision::f32 ? x : from_bits(p, bits_of(p, x)); }

Tolerance Tolerance::derive(Precision act, int64_t K, int w_roundings) {
  if (act == Precision::f32) throw Error("Tolerance::derive: activations are f16 or bf16");
  if (K < 1 || K > (int64_t(1) << 17)) throw Error("Tolerance::derive: K = " + std::to_string(K) + " outside 1..2^17");
  Tolerance t;
  t.act = act;
  t.K = K;
  const Rounding r = rounding_of(act);
  if (w_roundings < 1 || w_roundings > 2) throw Error("Tolerance::derive: w_roundings must be 1 or 2");
  t.u_c = r.u;
  t.u_w = w_roundings == 1 ? r.u : (1.0 + r.u) * (1.0 + r.u) - 1.0;
  t.eta_w = t.eta_c = r.eta;
  t.n_acc = double(K + 1);
  t.gamma = t.n_acc * kAccumulationUnit / (1.0 - t.n_acc * kAccumulationUnit);
  return t;
}

double Tolerance::elem(double ref_abs, double S, double SA) const {
  const double s = s_up(S);
  const double D = u_w * s + eta_w * SA + gamma * ((1.0 + u_w) * s + eta_w * SA);
  return u_c * ref_abs + (1.0 + u_c) * (D + 0x1p-23 * ref_abs + 0x1p-36 * s) + eta_c;
}

double Tolerance::variance(double ref_abs, double S, double Q, double SA) const {
  const double s = s_up(S);
  return u_w * u_w * Q + eta_w * eta_w * SA * SA + n_acc * kAccumulationUnit * kAccumulationUnit * s * s +
         u_c * u_c * ref_abs * ref_abs + eta_c * eta_c + 0x1p-46 * ref_abs * ref_abs;
}

double Tolerance::ref_up_from_cublas(double cub_abs, double S, double SA) const {
  // |cub| >= |r| - tol(|r|) = (1 - u_c - (1 + u_c) 2^-23) |r| - rest, rest = tol(0)
  const double rest = elem(0.0, S, SA);
  return (cub_abs + rest) / (1.0 - u_c - (1.0 + u_c) * 0x1p-23);
}

}  // namespace kbit::verify
