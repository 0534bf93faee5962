// fp32 CPU dequantization of the tiled layout (FORMAT §6): W'[n, k] = cb_stored[idx] * dec(absmax).
#pragma once

#include <cstdint>

#include "kbit/tiled.h"

namespace kbit {

// One row n of expert e, K floats. The unit every reference routine is built from.
void dequantize_row_ref(const TiledView& w, int64_t e, int64_t n, float* out);

// The whole tensor, row-major [E, N, K]; threaded over rows.
void dequantize_ref(const TiledView& w, float* out, int threads = 0);

}  // namespace kbit
