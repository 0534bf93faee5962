// "Exact mode" inputs (STYLE §4): weights whose dequantized values are short dyadic numbers and
// small-integer activations, so every product and every partial sum of C = A * W'^T is exactly
// representable in fp32 (|sum| / granularity < 2^24). fp32 accumulation is then exact in any
// order, and a GPU kernel must match the CPU reference bit for bit, also after rounding C to
// fp16/bf16 and also when W' is first rounded to fp16/bf16 (W' has at most 5 significant bits).
#pragma once

#include <cstdint>
#include <vector>

#include "kbit/quantize.h"

namespace kbit {

inline constexpr int kExactMaxActivation = 4;  // activations are integers in [-4, 4]
inline constexpr int kExactScaleSpan = 2;      // absmax decodes to 1 or 2 (codes 0xB0, 0xC0), or 0

// Codebook (i - 2^(k-1)) / 2^(k-1): ascending, uniform, in [-1, 1), granularity 2^-(k-1).
std::vector<float> exact_codebook(int bits);

// True when K is small enough that every partial sum stays exact (see file comment).
bool exact_mode_fits(int bits, int64_t K);

// Random indices, scales 1 or 2 (and 1 block in 16 with absmax 0), the exact codebook.
// Throws kbit::Error if !exact_mode_fits(bits, K).
QuantizedTensor make_exact_weights(int bits, int64_t E, int64_t N, int64_t K, uint64_t seed);

// rows x K integers in [-4, 4] as fp32 (exact in fp16 and bf16 too).
std::vector<float> make_exact_activations(int64_t rows, int64_t K, uint64_t seed);

}  // namespace kbit
