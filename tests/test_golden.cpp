// data/golden/blocks_v1.txt: every line equals the FORMAT §4 transcription (spec_encoder.h), so
// the file is independently checked, and the library reproduces it on every vector path.
#include <doctest/doctest.h>

#include "kbit/error.h"
#include "kbit/golden.h"
#include "spec_encoder.h"

using namespace kbit;

TEST_CASE("golden blocks: equal the spec transcription and the library on every path") {
  const auto golden = read_golden(KBIT_DATA_DIR "/golden/blocks_v1.txt");
  REQUIRE(golden.size() >= 60);
  for (const GoldenBlock& g : golden) {
    const Codebook cb = builtin_codebook(g.codebook, g.bits);
    const spec::Block want = g.encoder == Encoder::bnb ? spec::encode_bnb(g.x.data(), cb.values)
                                                       : spec::encode_search(g.x.data(), cb.values, g.scale_exp);
    CAPTURE(format_golden(g));
    REQUIRE(int(want.code) == int(g.absmax));
    for (int j = 0; j < 32; ++j) REQUIRE(unpack_index(g.words.data(), j, g.bits) == want.idx[size_t(j)]);
    for (SimdPath p : {SimdPath::scalar, SimdPath::avx2, SimdPath::avx512}) {
      set_simd_limit(p);
      if (simd_path() != p) continue;
      uint32_t words[kMaxBits];
      REQUIRE(int(BlockEncoder(cb, g.encoder, g.scale_exp).encode(g.x.data(), words)) == int(g.absmax));
      for (int b = 0; b < g.bits; ++b) REQUIRE(words[b] == g.words[size_t(b)]);
    }
    set_simd_limit(SimdPath::avx512);
  }
}

TEST_CASE("golden reader: malformed lines are refused with file and line") {
  CHECK_THROWS_WITH_AS(read_golden("/nonexistent/golden.txt"), doctest::Contains("cannot open"), Error);
}
