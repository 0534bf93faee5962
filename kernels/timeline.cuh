// Diagnostic timelines (the KBIT_GEMV_TIMELINE and KBIT_TCW_TIMELINE builds, off by default): a kernel's warps stamp
// their SM clock at points of each step into a device buffer, for docs/perf-notes.md's per-warp timelines. Nothing
// here is compiled into a kernel unless a knob's code calls it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace kbit::gpu::detail {

__device__ __forceinline__ uint32_t tl_clock() { return static_cast<uint32_t>(clock()); }
// The globaltimer's low 32 bits (ns).
__device__ __forceinline__ uint32_t tl_gtime() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return static_cast<uint32_t>(t);
}
__device__ __forceinline__ uint32_t tl_smid() {
  uint32_t v;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(v));
  return v;
}

// One thread's view of a timeline buffer: [cta][kWarps][kSteps][kEvents] SM clocks, then [cta][kCtaWords] words,
// for the first `ctas` CTAs. Built once per thread from the knob's device globals, whose values make() takes: the
// stamps then store through registers with no load of their own. (Read through the globals at every stamp, generic
// stores that could alias them made each stamp wait on a global load: the first gemv timeline,
// bench/results/2026-11-28-h200-gemvtl, is perturbed so.) Lane 0 of each warp stamps its warp's row; thread 0 writes
// the CTA's words.
template <int kWarps, int kSteps, int kEvents, int kCtaWords>
struct Timeline {
  uint32_t* steps = nullptr;  // lane 0's warp row of stamps, else nullptr
  uint32_t* words = nullptr;  // thread 0's CTA words, else nullptr
  bool set = false;           // a buffer is set (every thread)
  __device__ static Timeline make(uint32_t* buf, int ctas, int cta) {
    Timeline t;
    t.set = buf != nullptr;
    if (t.set && cta < ctas) {
      constexpr int64_t kPerWarp = int64_t{kSteps} * kEvents, kPerCta = kWarps * kPerWarp;
      if ((threadIdx.x & 31) == 0) t.steps = buf + cta * kPerCta + static_cast<int64_t>(threadIdx.x / 32) * kPerWarp;
      if (threadIdx.x == 0) t.words = buf + ctas * kPerCta + static_cast<int64_t>(cta) * kCtaWords;
    }
    return t;
  }
  __device__ __forceinline__ void stamp(int step, int ev) const {
    if (steps != nullptr && step < kSteps) __stcg(steps + step * kEvents + ev, tl_clock());
  }
  __device__ __forceinline__ void word(int i, uint32_t v) const {
    if (words != nullptr) __stcg(words + i, v);
  }
  // A branch on v: what follows it (the next stamp's clock read) waits for v's producers. It never traps while a
  // buffer is set; a timeline build run without one could, on one value of v in 2^32.
  __device__ __forceinline__ void wait_for(uint32_t v) const {
    if (v == 0x9E3779B9u && !set) __trap();
  }
  static constexpr size_t buffer_words(int ctas) {
    return static_cast<size_t>(ctas) * (size_t{kWarps} * kSteps * kEvents + kCtaWords);
  }
};

// Host: point a knob's device globals at buf for the first `ctas` CTAs of each launch (nullptr: off).
template <class BufSymbol, class CtasSymbol>
bool timeline_set_symbols(const BufSymbol& buf_symbol, const CtasSymbol& ctas_symbol, uint32_t* buf, int ctas) {
  return cudaMemcpyToSymbol(buf_symbol, &buf, sizeof(buf)) == cudaSuccess &&
         cudaMemcpyToSymbol(ctas_symbol, &ctas, sizeof(ctas)) == cudaSuccess;
}

}  // namespace kbit::gpu::detail
