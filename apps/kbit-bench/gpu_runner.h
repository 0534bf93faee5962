// kbit-bench's GPU side (NOT YET RUN ON A GPU): device info, the read-bandwidth measurement, and
// one row per planned case: verify the launch, then time it by CUDA-graph replays (bench_core.h
// holds everything CPU-side).
#pragma once

#include <memory>
#include <string>

#include "bench_core.h"

namespace kbit::bench {

struct GpuOptions {
  bool hot = false;
  int replays = 10;
  double target_replay_us = 3000;  // launches per graph: enough for ~this long a replay
  int64_t copy_budget_bytes = int64_t(12) << 30;  // memory for rotated weight copies
  int threads = 0;
  uint64_t seed = 1;
  std::vector<int> bits;           // the sweep's bits (baselines use the first one's weights)
};

class GpuBench {
 public:
  explicit GpuBench(GpuOptions o);
  ~GpuBench();
  RunInfo device_info() const;          // device, driver, clocks, L2 (read_gbps not set)
  double measure_read_gbps();           // vectorized sum over >= 1 GiB, median of 10
  Row run(const PlannedCase& c);        // never throws for a kernel failure: verify = FAIL / error

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

bool gpu_available(std::string* why);

}  // namespace kbit::bench
