// Device helpers shared by the kernel families: activation types, codebook staging, block
// decoding, cp.async, and the split-K fixup. Internal to kernels/ (not installed).
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kbit/block_decode.h"
#include "kbit/format.h"
#include "kbit/gpu.h"
#include "kbit/tiled.h"

namespace kbit::gpu::detail {

// ---------------------------------------------------------------------------------------------
// Activation element types.
template <Act A> struct ActTraits;
template <> struct ActTraits<Act::f16> {
  using T = __half;
  using T2 = __half2;
  static __device__ __forceinline__ float to_float(T x) { return __half2float(x); }
  static __device__ __forceinline__ T from_float(float x) { return __float2half_rn(x); }
  static __device__ __forceinline__ float2 to_float2(T2 x) { return __half22float2(x); }
  static __device__ __forceinline__ T2 from_float2(float a, float b) { return __floats2half2_rn(a, b); }
};
template <> struct ActTraits<Act::bf16> {
  using T = __nv_bfloat16;
  using T2 = __nv_bfloat162;
  static __device__ __forceinline__ float to_float(T x) { return __bfloat162float(x); }
  static __device__ __forceinline__ T from_float(float x) { return __float2bfloat16_rn(x); }
  static __device__ __forceinline__ float2 to_float2(T2 x) { return __bfloat1622float2(x); }
  static __device__ __forceinline__ T2 from_float2(float a, float b) { return __floats2bfloat162_rn(a, b); }
};

// ---------------------------------------------------------------------------------------------
// One quantization block: k bit-plane words -> index of element j (FORMAT §5).
template <int KB>
__device__ __forceinline__ int block_index(const uint32_t (&w)[KB], int j) {
  int idx = 0;
#pragma unroll
  for (int b = 0; b < KB; ++b) idx |= static_cast<int>((w[b] >> j) & 1u) << b;
  return idx;
}

// Fast form: block_offsets (lib/kbit/block_decode.h, host + device so the CPU tests check the
// very function the kernels run) turns the planes into codebook byte offsets for cb_byte.

// Codebook entry at byte offset byte c of `offsets` (from block_offsets).
__device__ __forceinline__ float cb_byte(const float* cb_s, uint32_t offsets, int c) {
  const uint32_t off = __byte_perm(offsets, 0u, 0x4440u + static_cast<uint32_t>(c));
  return *reinterpret_cast<const float*>(reinterpret_cast<const char*>(cb_s) + off);
}

__device__ __forceinline__ float absmax_scale(uint8_t code) { return e4m4_decode(code); }

// Stage the stored codebook (2^k floats) into shared memory; caller synchronises.
template <int KB>
__device__ __forceinline__ void stage_codebook(const float* __restrict__ cb, float* cb_s) {
  for (int i = threadIdx.x; i < (1 << KB); i += blockDim.x) cb_s[i] = cb[i];
}

// ---------------------------------------------------------------------------------------------
// cp.async (sm_80+): 16-byte and 4-byte global -> shared copies with zero fill.
__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool valid) {
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(smem)), "l"(gmem),
               "r"(src_bytes));
}
__device__ __forceinline__ void cp_async4(void* smem, const void* gmem, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(smem)), "l"(gmem),
               "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// ---------------------------------------------------------------------------------------------
// Split-K fixup. Workspace = [counters: one uint32 per output tile][partials: splits x M x N
// fp32]. Each slice writes its fp32 partial tile; the last slice of a tile to arrive (atomic
// counter) sums all slices in slice order (deterministic), writes C and resets the counter to 0,
// so the counters stay zero between calls (the workspace must be zeroed once after allocation).
struct SplitK {
  uint32_t* counters = nullptr;
  float* partials = nullptr;
  int splits = 1;
};

inline constexpr size_t kCounterBytes = 256;  // alignment of the partials after the counters

__host__ __device__ inline size_t splitk_counter_bytes(int64_t tiles) {
  return ((static_cast<size_t>(tiles) * 4 + kCounterBytes - 1) / kCounterBytes) * kCounterBytes;
}

// Called by all threads of the CTA after it stored its partial (its own elements) into
// partials + slice * M * N. Returns true in the CTA that must finish the tile.
__device__ __forceinline__ bool splitk_arrive(const SplitK& sk, int tile) {
  __shared__ int last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint32_t prev = atomicAdd(sk.counters + tile, 1u);
    last = prev == static_cast<uint32_t>(sk.splits - 1);
    if (last) sk.counters[tile] = 0;  // reset for the next call (no one else touches it now)
  }
  __syncthreads();
  if (last) __threadfence();
  return last;
}

// Slice ranges over k-tiles: `splits` slices, every one non-empty (requires splits <= tiles).
__host__ __device__ inline void slice_range(int64_t tiles, int splits, int s, int64_t& begin, int64_t& end) {
  begin = tiles * s / splits;
  end = tiles * (s + 1) / splits;
}

// ---------------------------------------------------------------------------------------------
// MoE work items: expert e with rows r_e gives ceil(r_e / chunk) items. Item `item` -> (expert,
// first row, rows). The total is at most min(E, total_rows) + total_rows / chunk, which the host
// uses as the grid size; surplus CTAs find no item and exit. Called by all threads of the CTA.
struct WorkItem {
  int expert = -1;
  int row0 = 0;
  int rows = 0;
};

__device__ __forceinline__ WorkItem find_work_item(const int32_t* __restrict__ offsets, int E, int chunk,
                                                   int item) {
  __shared__ WorkItem found;
  if (threadIdx.x < 32) {
    const int lane = threadIdx.x;
    int base = 0;  // items before the current group of 32 experts
    WorkItem w;
    for (int e0 = 0; e0 < E; e0 += 32) {
      const int e = e0 + lane;
      int rows = 0, begin = 0;
      if (e < E) {
        begin = offsets[e];
        rows = offsets[e + 1] - begin;
      }
      const int items = (rows + chunk - 1) / chunk;
      int incl = items;  // inclusive warp scan
#pragma unroll
      for (int d = 1; d < 32; d <<= 1) {
        const int v = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d) incl += v;
      }
      const int excl = base + incl - items;
      const bool mine = items > 0 && item >= excl && item < excl + items;
      const unsigned hit = __ballot_sync(0xffffffffu, mine);
      if (hit) {
        const int src = __ffs(hit) - 1;
        if (lane == src) {
          const int c = item - excl;
          w.expert = e;
          w.row0 = begin + c * chunk;
          w.rows = min(chunk, rows - c * chunk);
        }
        w.expert = __shfl_sync(0xffffffffu, w.expert, src);
        w.row0 = __shfl_sync(0xffffffffu, w.row0, src);
        w.rows = __shfl_sync(0xffffffffu, w.rows, src);
        break;
      }
      base += __shfl_sync(0xffffffffu, incl, 31);
    }
    if (lane == 0) found = w;
  }
  __syncthreads();
  return found;
}

inline int64_t moe_max_items(int64_t E, int64_t total_rows, int chunk) {
  return (E < total_rows ? E : total_rows) + total_rows / chunk;
}

}  // namespace kbit::gpu::detail
