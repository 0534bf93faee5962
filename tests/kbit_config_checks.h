// The FORMAT §7 quantization_config fields every kbit-quantize output carries, as written with
// the default options (k = 4, codebook nf, encoder search). Shared by the plan and app tests.
#pragma once

#include <doctest/doctest.h>

namespace kbit::test {

template <class Json>
void check_default_quantization_config(const Json& q) {
  CHECK(q["quant_method"] == "kbit");
  CHECK(q["format_version"] == 1);
  CHECK(q["bits"] == 4);
  CHECK(q["blocksize"] == 32);
  CHECK(q["absmax_format"] == "e4m4");
  CHECK(q["layout"] == "tiled64");
  CHECK(q["codebook"] == "nf");
  CHECK(q["encoder"] == "search");
}

}  // namespace kbit::test
