#include "kbit/codebook.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <fstream>
#include <sstream>

#include "kbit/error.h"
#include "kbit/format.h"

namespace kbit {
namespace {

// BNF: Lloyd-Max levels fitted on Gaussian data normalised per block of 32 (upstream's
// create_bnf_codebook); the positive half, the negative half mirrors it. Given to 4 decimals, so
// the fp32 values are the nearest floats to these decimals.
constexpr float kBnf2[] = {.6642f, .1964f};
constexpr float kBnf3[] = {.8827f, .5583f, .3141f, .1018f};
constexpr float kBnf4[] = {.9686f, .7739f, .6179f, .4846f, .3652f, .2551f, .1509f, .0499f};
constexpr float kBnf5[] = {.9920f, .8850f, .7913f, .7078f, .6321f, .5625f, .4977f, .4369f,
                           .3791f, .3239f, .2707f, .2193f, .1692f, .1201f, .0718f, .0239f};

std::vector<float> mirrored(const float* half_desc, int n) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(-half_desc[i]);
  for (int i = n - 1; i >= 0; --i) v.push_back(half_desc[i]);
  return v;
}

void check_bits(int k, const std::string& what) {
  if (!valid_bits(k))
    throw Error(what + ": bits must be 2, 3, 4 or 5 (got " + std::to_string(k) + ")");
}

}  // namespace

void validate_codebook(const Codebook& cb) {
  check_bits(cb.bits, "codebook '" + cb.name + "'");
  const size_t want = static_cast<size_t>(codebook_size(cb.bits));
  if (cb.values.size() != want)
    throw Error("codebook '" + cb.name + "': has " + std::to_string(cb.values.size()) +
                " values, k = " + std::to_string(cb.bits) + " needs exactly " +
                std::to_string(want));
  for (size_t i = 0; i < want; ++i) {
    if (!std::isfinite(cb.values[i]))
      throw Error("codebook '" + cb.name + "': value " + std::to_string(i) + " is not finite");
    if (i > 0 && cb.values[i] < cb.values[i - 1])
      throw Error("codebook '" + cb.name + "': values must be ascending; value " +
                  std::to_string(i) + " is below value " + std::to_string(i - 1));
  }
}

Codebook builtin_codebook(const std::string& name, int k) {
  check_bits(k, "codebook '" + name + "'");
  Codebook cb{name, k, {}};
  if (name == "nf") {
    const uint32_t* bits = nf_codebook_bits(k);
    for (int i = 0; i < codebook_size(k); ++i) cb.values.push_back(std::bit_cast<float>(bits[i]));
  } else if (name == "bnf") {
    const float* half = k == 2 ? kBnf2 : k == 3 ? kBnf3 : k == 4 ? kBnf4 : kBnf5;
    cb.values = mirrored(half, codebook_size(k) / 2);
  } else {
    throw Error("unknown codebook '" + name + "': use nf, bnf or a path to a file of " +
                std::to_string(codebook_size(k)) + " numbers");
  }
  validate_codebook(cb);
  return cb;
}

Codebook load_codebook_file(const std::string& path, int k) {
  check_bits(k, "codebook file " + path);
  std::ifstream in(path);
  if (!in) throw Error("codebook file " + path + ": cannot open it");
  Codebook cb{"file:" + path, k, {}};
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      char* end = nullptr;
      const float v = std::strtof(word.c_str(), &end);
      if (end == word.c_str() || *end != '\0')
        throw Error("codebook file " + path + ":" + std::to_string(line_no) + ": '" + word +
                    "' is not a number");
      cb.values.push_back(v);
    }
  }
  validate_codebook(cb);
  return cb;
}

Codebook resolve_codebook(const std::string& spec, int k) {
  if (spec == "nf" || spec == "bnf") return builtin_codebook(spec, k);
  return load_codebook_file(spec, k);
}

}  // namespace kbit
