// kbit-fragcheck --gpu: probe kernels (probe.cu, sm_90) that run the real ldmatrix and
// mma.sync m16n8k16 instructions on index-encoded tiles and compare every lane's registers with the
// CPU model of lib/kbit/fragment.h and the layouts of lib/kbit/smem_layout.h.
#pragma once

#include <string>
#include <vector>

#include "kbit/fragcheck.h"

namespace kbit::fragcheck {

struct GpuInfo {
  bool available = false;  // a CUDA device the probes can run on
  std::string device;      // name, compute capability, driver/runtime versions; or why none
};

// Probes the device; when it is unavailable returns no checks and info.available == false.
// inject_fault: compare against deliberately wrong expectations (every GPU check must then fail).
std::vector<Check> run_gpu_probes(GpuInfo& info, bool inject_fault = false);

}  // namespace kbit::fragcheck
