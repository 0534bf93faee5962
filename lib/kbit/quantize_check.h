// `kbit-quantize check OUT [--source SRC]`: reopens a quantized checkpoint and validates it against
// FORMAT §7 (shard metadata, tensor names, dtypes and shapes, codebook ascending and equal to the
// named built-in times 2^s, zero padding of the tiled layout, config.json quantization_config).
// With the source it also dequantizes every tensor on the CPU (NMSE, SQNR, max abs error against
// the source, a threshold per tensor), re-encodes it and requires identical bytes (the encoders
// are bit-exact, FORMAT §4, so one flipped bit is caught), and checks copied tensors byte for byte.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kbit/quantize_run.h"

namespace kbit {

struct CheckOptions {
  std::filesystem::path output;
  std::optional<std::filesystem::path> source;
  std::optional<double> max_nmse;  // default: default_max_nmse(bits) per tensor
  bool reencode = true;            // with a source: require identical bytes on re-encoding
  int threads = 0;
};

// Default NMSE ceiling per width: 10^-(6k-9)/10, an SQNR floor of 6k - 9 dB (3, 9, 15, 21 dB):
// 4.6-6.4 dB under nf on Gaussian weights and 1.3-5.2 dB under the worst tensor of the real
// all-MiniLM-L6-v2 (5.05 / 13.3 / 20.2 / 26.2 dB at k = 2..5). The ceiling catches gross damage;
// re-encoding catches every flipped bit.
double default_max_nmse(int bits);

struct CheckedTensor {
  std::string name;
  int bits = 0;
  int scale_exp = 0;
  std::string encoder, codebook, dtype;
  std::vector<int64_t> shape;
  bool compared = false;  // a source was given and the error computed
  ErrorStats err;
  double max_nmse = 0;
  bool reencoded_identical = false;
  std::vector<std::string> problems;
};

struct CheckResult {
  std::vector<CheckedTensor> tensors;  // quantized tensors
  size_t copied_identical = 0, copied_checked = 0;
  std::vector<std::string> problems;   // every problem, one line each, naming file and tensor
  std::vector<std::string> notes;
  bool ok() const { return problems.empty(); }
  double wall_s = 0;
};

using CheckProgressFn = std::function<void(size_t done, size_t total, const std::string& name)>;

// Throws kbit::Error only when the output cannot be opened at all (missing, not safetensors);
// everything found inside a readable output is a problem in the result.
CheckResult check_output(const CheckOptions& opt, const CheckProgressFn& progress = {});

nlohmann::ordered_json check_json(const CheckResult& r, const CheckOptions& opt);

}  // namespace kbit
