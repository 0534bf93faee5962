#include "kbit/golden.h"

#include <bit>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "kbit/error.h"

namespace kbit {

std::vector<GoldenBlock> read_golden(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("golden file " + path + ": cannot open it");
  std::vector<GoldenBlock> out;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    auto fail = [&](const std::string& why) {
      return Error("golden file " + path + ":" + std::to_string(line_no) + ": " + why);
    };
    std::istringstream s(line);
    GoldenBlock g;
    std::string enc, bar;
    unsigned absmax = 0;
    if (!(s >> enc >> g.bits >> g.codebook >> g.scale_exp >> std::hex >> absmax))
      throw fail("expected: encoder bits codebook scale_exp absmax words | 32 values");
    g.encoder = parse_encoder(enc);
    if (!valid_bits(g.bits) || absmax > 255) throw fail("bits must be 2..5 and absmax a byte");
    g.absmax = static_cast<uint8_t>(absmax);
    for (int b = 0; b < g.bits; ++b) {
      uint32_t w = 0;
      if (!(s >> w)) throw fail("missing word " + std::to_string(b));
      g.words.push_back(w);
    }
    if (!(s >> bar) || bar != "|") throw fail("expected '|' after the words");
    uint32_t v = 0;
    while (s >> v) g.x.push_back(std::bit_cast<float>(v));
    if (g.x.size() != size_t(kBlockSize)) throw fail("expected 32 values, found " + std::to_string(g.x.size()));
    out.push_back(std::move(g));
  }
  return out;
}

std::string format_golden(const GoldenBlock& g) {
  char buf[16];
  std::string s = std::string(encoder_name(g.encoder)) + " " + std::to_string(g.bits) + " " + g.codebook + " " +
                  std::to_string(g.scale_exp);
  std::snprintf(buf, sizeof buf, " %02x", g.absmax);
  s += buf;
  for (uint32_t w : g.words) {
    std::snprintf(buf, sizeof buf, " %08x", w);
    s += buf;
  }
  s += " |";
  for (float v : g.x) {
    std::snprintf(buf, sizeof buf, " %08x", std::bit_cast<uint32_t>(v));
    s += buf;
  }
  return s;
}

}  // namespace kbit
