// The GPU side of kbit-verify: runs one case through kbit::gpu and checks it against
//   (a) the fp32 CPU reference (gemm_ref / moe_gemm_ref on A rounded to the dtype): every element
//       when rows * N * K <= 2^28, else the sampled elements of sampling.h (gemm_element_ref);
//   (b) cublasGemmEx (fp32 compute) on W' dequantized by the GPU to the activation dtype: every
//       element, for the first launch and for a second one on the dirty workspace ("rerun");
//   (c) exact mode (reference/exact_mode.h): the CPU reference rounded to the dtype, and cuBLAS on
//       the same exact data, bit for bit;
// plus guard bytes around C and after the workspace (out-of-bounds writes). C and the workspace are
// poisoned (0xFF: NaN in f16 and bf16) before every launch. Tolerances: tolerance.h.
// With RunnerOptions::cublas false (--no-cublas) no cuBLAS call is made at all (no handle): (b) and
// the cuBLAS half of (c) are recorded as skipped, the statistics S and Q of the tolerances come
// from the CPU (stats.h) for the checked elements, and dequant_cublas cases are skipped.
// Dequantize cases compare the whole output bit for bit with dequantize_ref rounded to the dtype.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "cases.h"

namespace kbit::verify {

// A CUDA or cuBLAS call failed outside a kernel under test (the tool exits 3).
class CudaFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// False (and why) when no CUDA device can be used.
bool cuda_device_available(std::string* why);

struct RunnerOptions {
  int threads = 0;             // CPU threads for references and comparisons (0: all)
  int64_t sample_budget = 4096;  // random sampled elements of large cases
  bool exact = true;           // run check (c)
  bool rerun = true;           // second launch on the dirty workspace
  bool cublas = true;          // false: no cuBLAS at all (see above); time_case then throws
  bool pdl = false;            // launches with LinearArgs::pdl / MoeArgs::pdl (programmatic dependent launch)
};

class Runner {
 public:
  Runner(uint64_t master_seed, RunnerOptions opt);
  ~Runner();
  CaseOutcome run(const CaseSpec& c);
  std::string device_description() const;

  // --time support: the median of `iters` launches of the case's kernel (µs), and of cuBLAS fp16
  // on the dense weights of the same shape (per-expert loop for MoE), weights rotated over copies
  // when that fits (label says which). Verifies the exact launch first: outcome holds the checks.
  struct Timing {
    CaseOutcome outcome;
    double kbit_us = 0, cublas_us = 0;
    std::string rotation;  // "cold: N copies (X MB)" or "hot"
  };
  Timing time_case(const CaseSpec& c, int warmup, int iters);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kbit::verify
