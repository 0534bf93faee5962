// F8_E4M3 (torch.float8_e4m3fn: 1 sign, 4 exponent bits with bias 7, 3 mantissa bits, no
// infinities, 0x7f/0xff = NaN, max 448) to fp32, exactly. Used to read block-scaled fp8 sources
// (DeepSeek-V3 style: weight F8_E4M3 plus weight_scale_inv F32 per 128x128 block).
#pragma once

#include <cmath>
#include <cstdint>

namespace kbit {

constexpr float fp8_e4m3_to_f32(uint8_t v) {
  const uint32_t e = (v >> 3) & 0xfu, m = v & 0x7u;
  const float sign = (v & 0x80u) ? -1.0f : 1.0f;
  if (e == 0xf && m == 0x7) return NAN;
  float mag = 0.0f;
  if (e == 0) {
    mag = float(m) * 0x1p-9f;  // subnormal: m/8 * 2^-6
  } else {
    mag = (1.0f + float(m) / 8.0f);
    for (uint32_t i = 0; i < e; ++i) mag *= 2.0f;
    mag *= 0x1p-7f;
  }
  return sign * mag;
}

static_assert(fp8_e4m3_to_f32(0x7e) == 448.0f && fp8_e4m3_to_f32(0x01) == 0x1p-9f && fp8_e4m3_to_f32(0x38) == 1.0f);

}  // namespace kbit
