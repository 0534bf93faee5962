// Element types the toolkit reads and writes, with exact host conversions (round to nearest
// even) between fp32 and the 16-bit float formats. Host only; kernels use cuda_fp16/cuda_bf16.
#pragma once

#include <bit>
#include <cstdint>
#include <string>

namespace kbit {

enum class DType { F32, F16, BF16 };

const char* dtype_name(DType t);      // "F32", "F16", "BF16" (safetensors spelling)
int dtype_size(DType t);

constexpr float bf16_to_f32(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }

constexpr uint16_t f32_to_bf16(float f) {  // round to nearest even; NaN stays a quiet NaN
  const uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u);
  const uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return uint16_t((u + rounding) >> 16);
}

constexpr float f16_to_f32(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t man = h & 0x3ffu;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
  if (exp != 0) return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (man << 13));
  // zero or subnormal: man * 2^-24, exact in fp32
  const float mag = static_cast<float>(man) * 0x1p-24f;
  return sign ? -mag : mag;
}

// Round to nearest even, overflow to infinity, NaN kept.
uint16_t f32_to_f16(float f);

// Convert n elements of type t at src to fp32.
void to_f32(DType t, const void* src, float* dst, int64_t n);

}  // namespace kbit
