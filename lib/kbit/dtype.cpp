#include "kbit/dtype.h"

#include <cmath>
#include <cstring>

namespace kbit {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
  }
  return "?";
}

int dtype_size(DType t) { return t == DType::F32 ? 4 : 2; }

uint16_t f32_to_f16(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return uint16_t(sign | 0x7e00u);  // NaN
  if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds to >= 65520: infinity
  if (abs >= 0x38800000u) {                                 // normal half (>= 2^-14)
    const uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
    return uint16_t(sign | ((rounded - (112u << 23)) >> 13));
  }
  // subnormal half or zero: value / 2^-24, rounded to nearest even by the FPU (exact scaling)
  const float scaled = std::bit_cast<float>(abs) * 0x1p24f;
  return uint16_t(sign | static_cast<uint16_t>(std::nearbyint(scaled)));
}

void to_f32(DType t, const void* src, float* dst, int64_t n) {
  if (t == DType::F32) {
    std::memcpy(dst, src, size_t(n) * 4);
    return;
  }
  const auto* h = static_cast<const uint16_t*>(src);
  if (t == DType::BF16)
    for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_f32(h[i]);
  else
    for (int64_t i = 0; i < n; ++i) dst[i] = f16_to_f32(h[i]);
}

}  // namespace kbit
