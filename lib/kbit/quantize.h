// Whole-tensor quantization into the tiled layout (FORMAT §4-§6), multithreaded over rows, and
// the flat <-> tiled conversions. A tensor is [N, K] or fused experts [E, N, K], row-major.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kbit/codebook.h"
#include "kbit/dtype.h"
#include "kbit/encode.h"
#include "kbit/tiled.h"

namespace kbit {

struct TensorView {
  const void* data = nullptr;
  DType dtype = DType::F32;
  int64_t E = 1, N = 0, K = 0;  // E = 1 and fused = false for a 2D tensor
  bool fused = false;
};

struct QuantizedTensor {
  std::string name;
  int bits = 0;
  int64_t E = 1, N = 0, K = 0;
  bool fused = false;
  DType source_dtype = DType::F32;
  Encoder encoder = Encoder::search;
  std::string codebook_name;
  int scale_exp = 0;
  std::vector<float> codebook_stored;  // cb * 2^s, what the kernels see
  std::vector<uint32_t> packed;        // [E][k_tiles][N][2][k]
  std::vector<uint8_t> absmax;         // [E][k_tiles][N][2]

  TiledView view() const {
    TiledView v{packed.data(), absmax.data(), codebook_stored.data(), bits, E, N, K};
    v.half_cb = codebook_half_normal(codebook_stored.data(), static_cast<int>(codebook_stored.size()));
    return v;
  }
};

struct QuantizeOptions {
  Encoder encoder = Encoder::search;
  int threads = 0;                // 0: all hardware threads
  std::optional<int> scale_exp;   // search only: a shared scale (expert groups, FORMAT §6)
};

// Checks shape rules (N >= 1, K >= 32, K % 32 == 0); throws kbit::Error naming the tensor.
void check_quantizable(const std::string& name, const TensorView& w);

// max |w| over the whole tensor (all experts). Throws on NaN/Inf, naming tensor and position.
float tensor_absmax(const std::string& name, const TensorView& w, int threads = 0);

QuantizedTensor quantize_tensor(const std::string& name, const TensorView& w, const Codebook& cb,
                                const QuantizeOptions& opt = {});

// One expert's flat layout words[n][kb][b], absmax[n][kb] <-> its tiled layout (pad blocks zero).
void flat_to_tiled(const uint32_t* words, const uint8_t* absmax, int64_t N, int64_t K, int k,
                   uint32_t* packed, uint8_t* absmax_tiled);
void tiled_to_flat(const uint32_t* packed, const uint8_t* absmax_tiled, int64_t N, int64_t K, int k,
                   uint32_t* words, uint8_t* absmax);

}  // namespace kbit
