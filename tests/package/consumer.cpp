// Links against the installed kbit::gpu and calls it: a bad argument must come back as a Status.
#include <cstdio>

#include "kbit/gpu.h"

int main() {
  kbit::gpu::LinearArgs a;  // no weights: the call must refuse before touching the GPU
  const kbit::gpu::Status s = kbit::gpu::linear(a);
  std::printf("linear() on empty args: %s (%s)\n", kbit::gpu::status_name(s), kbit::gpu::status_message());
  return s == kbit::gpu::Status::bad_bits ? 0 : 1;
}
