// libFuzzer target: kbit::st::parse_header on arbitrary bytes taken as a whole file. Any input
// must either parse into a header that satisfies the format's invariants or throw kbit::Error;
// a crash, a sanitizer report, another exception type or a broken invariant is a finding.
// Built by scripts/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined; KBIT_BUILD_FUZZERS=ON).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "kbit/error.h"
#include "kbit/safetensors.h"

namespace {

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "parse_header accepted an input that breaks an invariant: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kbit::st::Header h;
  try {
    h = kbit::st::parse_header(std::span<const uint8_t>(data, size), size, "fuzz-input");
  } catch (const kbit::Error&) {
    return 0;  // refused with a message: the expected outcome for most inputs
  }
  // Accepted: the tensors must tile the data buffer exactly, in order, with consistent sizes.
  if (h.data_start < 8 || h.data_start > size) broken("data_start outside the input");
  uint64_t expect = 0;
  for (const kbit::st::TensorInfo& t : h.tensors) {
    if (t.begin != expect || t.end < t.begin) broken("offsets not contiguous");
    const int bits = kbit::st::dtype_bits(t.dtype);
    if (bits == 0) broken("unknown dtype accepted");
    for (int64_t d : t.shape)
      if (d < 0) broken("negative dimension accepted");
    if (t.numel() < 0 || uint64_t(t.numel()) * uint64_t(bits) / 8 != t.nbytes()) broken("size mismatch accepted");
    expect = t.end;
  }
  if (h.data_start + expect != size) broken("data buffer not entirely indexed");
  for (const kbit::st::TensorInfo& t : h.tensors)
    if (t.name == "__metadata__") broken("__metadata__ taken for a tensor");
  return 0;
}
