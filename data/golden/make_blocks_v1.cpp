// Generator of data/golden/blocks_v1.txt, kept for the record (not built; run once by hand:
// g++ -std=c++20 -Ilib data/golden/make_blocks_v1.cpp build/lib/libkbit_core.a -lpthread).
// independently against the spec transcription by tests/test_golden.cpp.
#include "kbit/golden.h"
#include "kbit/rng.h"
#include <cmath>
#include <cstdio>
using namespace kbit;
int main() {
  Rng rng(2026);
  std::printf("# kbit golden blocks, format v1. One line per block:\n# encoder bits codebook scale_exp absmax(hex) word0..word(k-1)(hex) | x0..x31 (fp32 bits, hex)\n# Checked against the FORMAT §4 transcription by tests/test_golden.cpp.\n");
  for (const char* cbn : {"nf", "bnf"})
  for (Encoder e : {Encoder::bnb, Encoder::search})
    for (int k = 2; k <= 5; ++k)
      for (int t = 0; t < 4; ++t) {
        GoldenBlock g; g.encoder = e; g.bits = k; g.codebook = cbn;
        float sc = float(std::ldexp(1.0, int(rng.range(-8, 2))));
        for (int j = 0; j < 32; ++j) g.x.push_back(t == 3 ? (j == 0 ? sc : 0.0f) : float(rng.normal()) * sc);
        float amax = 0; for (float v : g.x) amax = std::fmax(amax, std::fabs(v));
        if (e == Encoder::bnb && amax >= 32) continue;
        g.scale_exp = e == Encoder::bnb ? 0 : choose_scale_exp(amax);
        BlockEncoder enc(builtin_codebook(cbn, k), e, g.scale_exp);
        uint32_t w[5]; g.absmax = enc.encode(g.x.data(), w); g.words.assign(w, w + k);
        std::printf("%s\n", format_golden(g).c_str());
      }
}
