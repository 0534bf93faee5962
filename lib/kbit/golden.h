// Golden blocks (data/golden/blocks_v1.txt): inputs and the exact bytes both encoders must give.
// One line per block:  encoder bits codebook scale_exp absmax word0..word(k-1) | x0 .. x31
// with absmax and words in hex and x as fp32 bit patterns in hex, so the file is exact.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kbit/encode.h"

namespace kbit {

struct GoldenBlock {
  Encoder encoder = Encoder::search;
  int bits = 0;
  std::string codebook;
  int scale_exp = 0;
  uint8_t absmax = 0;
  std::vector<uint32_t> words;
  std::vector<float> x;  // 32 values
};

// Throws kbit::Error naming the file and line on any malformed line.
std::vector<GoldenBlock> read_golden(const std::string& path);
std::string format_golden(const GoldenBlock& g);

}  // namespace kbit
