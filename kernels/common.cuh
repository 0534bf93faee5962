// Device helpers shared by the kernel families: activation types, codebook staging, block
// decoding, cp.async, and the split-K fixup. Internal to kernels/ (not installed).
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kbit/block_decode.h"
#include "kbit/format.h"
#include "kbit/gpu.h"
#include "kbit/moe_sched.h"
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
// very function the kernels run) turns the planes into codebook byte offsets for cb_byte / cb_lds.

// Codebook entry at byte offset byte c of `offsets` (from block_offsets).
__device__ __forceinline__ float cb_byte(const float* cb_s, uint32_t offsets, int c) {
  const uint32_t off = __byte_perm(offsets, 0u, 0x4440u + static_cast<uint32_t>(c));
  return *reinterpret_cast<const float*>(reinterpret_cast<const char*>(cb_s) + off);
}

// k = 2: the codebook pair (elements 8c + r, 8c + 4 + r) at byte c of a block_pair_offsets2 word, from
// the 16-entry float2 table of stage_pairs2 (PRMT + one 8-byte shared load for two weights).
__device__ __forceinline__ float2 cb_pair(const float2* pair_s, uint32_t offsets, int c) {
  const uint32_t off = __byte_perm(offsets, 0u, 0x4440u + static_cast<uint32_t>(c));
  return *reinterpret_cast<const float2*>(reinterpret_cast<const char*>(pair_s) + off);
}

// Stage the k = 2 pair table: entry lo | hi << 2 = (cb[lo], cb[hi]); caller synchronises.
__device__ __forceinline__ void stage_pairs2(const float* __restrict__ cb, float2* pair_s) {
  for (int i = threadIdx.x; i < 16; i += blockDim.x) pair_s[i] = make_float2(cb[i & 3], cb[i >> 2]);
}

// Shared-window address of the entry at byte offset (byte c of `offsets`) in a table of at most 256
// bytes at the 256-byte aligned address `base`: one PRMT builds the whole address (byte 0 from the
// offsets, bytes 1..3 from base), with no address add (the compiler adds a run-time base to every
// index or offset on sm_90: docs/perf-notes.md).
__device__ __forceinline__ uint32_t table_byte_addr(uint32_t base, uint32_t offsets, int c) {
  return __byte_perm(offsets, base, 0x7650u + static_cast<uint32_t>(c));
}

// Codebook entry of byte c of `offsets` (from block_offsets) in a 256-byte aligned shared-memory
// codebook whose shared-window address is `base` (table_byte_addr): PRMT + LDS per weight.
__device__ __forceinline__ float cb_lds(uint32_t base, uint32_t offsets, int c) {
  const uint32_t addr = table_byte_addr(base, offsets, c);
  float v;
  asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr));
  return v;
}

// The block scale of an absmax byte in a step loop: e4m4_decode's value in two instructions
// (e4m4_decode_bits, lib/kbit/format.h).
__device__ __forceinline__ float absmax_scale(uint8_t code) { return e4m4_decode_bits(code); }

// All 256 E4M4 absmax codes decoded into shared memory (one indexed load per block instead of the
// decode arithmetic); caller synchronises.
__device__ __forceinline__ void stage_scales(float* scale_s) {
  for (int i = threadIdx.x; i < 256; i += blockDim.x) scale_s[i] = e4m4_decode(static_cast<uint8_t>(i));
}

// Stage the stored codebook (2^k floats) into shared memory; caller synchronises.
template <int KB>
__device__ __forceinline__ void stage_codebook(const float* __restrict__ cb, float* cb_s) {
  for (int i = threadIdx.x; i < (1 << KB); i += blockDim.x) cb_s[i] = cb[i];
}

// ---------------------------------------------------------------------------------------------
// The k bit-plane words of one block (16- or 8-byte loads where k allows; read-only path).
template <int KB>
__device__ __forceinline__ void load_block_words(const uint32_t* __restrict__ p, uint32_t (&w)[KB]) {
  if constexpr (KB == 4) {
    const uint4 v = __ldg(reinterpret_cast<const uint4*>(p));
    w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
  } else if constexpr (KB == 2) {
    const uint2 v = __ldg(reinterpret_cast<const uint2*>(p));
    w[0] = v.x; w[1] = v.y;
  } else {
#pragma unroll
    for (int b = 0; b < KB; ++b) w[b] = __ldg(p + b);
  }
}

// The same from shared memory (a staged copy of the block's words).
template <int KB>
__device__ __forceinline__ void load_block_words_shared(const uint32_t* p, uint32_t (&w)[KB]) {
  if constexpr (KB == 4) {
    const uint4 v = *reinterpret_cast<const uint4*>(p);
    w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
  } else if constexpr (KB == 2) {
    const uint2 v = *reinterpret_cast<const uint2*>(p);
    w[0] = v.x; w[1] = v.y;
  } else {
#pragma unroll
    for (int b = 0; b < KB; ++b) w[b] = p[b];
  }
}

// D += A * B on the tensor cores, m16n8k16, fp16/bf16 inputs, fp32 accumulators (row.col).
template <Act ACT>
__device__ __forceinline__ void mma16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (ACT == Act::f16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// ---------------------------------------------------------------------------------------------
// The one place a run-time bit width becomes a template argument: f(std::integral_constant<int, k>)
// for k = bits in 2..5, `otherwise` for any other value (the API rejects those before a launch).
template <typename R, typename F>
R with_bits(int bits, R otherwise, F&& f) {
  switch (bits) {
    case 2: return f(std::integral_constant<int, 2>{});
    case 3: return f(std::integral_constant<int, 3>{});
    case 4: return f(std::integral_constant<int, 4>{});
    case 5: return f(std::integral_constant<int, 5>{});
  }
  return otherwise;
}

// ---------------------------------------------------------------------------------------------
// Resident CTAs per SM of kernel `kern` at `threads` threads per CTA and `smem` bytes of dynamic
// shared memory, cached per device (the launchers size grids and split-K from it); 1 if the query
// fails. Where the static and dynamic shared memory together pass 48 KB the kernel's opt-in is set
// first: without it the query finds no room for a CTA. (Before, only a dynamic size above 48 KB set it, so tcw's
// 64-token plans without the pair table, 48 KB dynamic + 2.3 KB static, counted 1 CTA per SM by the
// fallback; k = 2's stream-K kernel holds 2 on the H100, bench/results/2026-11-27-h100-occfix.)
template <typename Kern>
int cached_blocks_per_sm(Kern kern, int threads, int (&cache)[64], int smem = 0) {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return 1;
  if (cache[dev] == 0) {
    int n = 0;
    cudaFuncAttributes fa{};
    bool ok = cudaFuncGetAttributes(&fa, kern) == cudaSuccess;
    if (ok && smem + fa.sharedSizeBytes > 48 * 1024)
      ok = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) == cudaSuccess;
    ok = ok && cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kern, threads, smem) == cudaSuccess && n >= 1;
    if (!ok) {
      cudaGetLastError();  // a failed query is no launch's error
      n = 1;
    }
    cache[dev] = n;
  }
  return cache[dev];
}

// ---------------------------------------------------------------------------------------------
// cp.async (sm_80+): 16-, 8- and 4-byte global -> shared copies (zero fill: 16 and 4).
__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool valid) {
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(smem)), "l"(gmem),
               "r"(src_bytes));
}
__device__ __forceinline__ void cp_async8(void* smem, const void* gmem) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(smem_addr(smem)), "l"(gmem));
}
__device__ __forceinline__ void cp_async4(void* smem, const void* gmem, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(smem)), "l"(gmem),
               "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// ---------------------------------------------------------------------------------------------
// Bulk copies (sm_90: cp.async.bulk, the TMA unit's one-dimensional form) into shared memory,
// counted by an mbarrier: one thread's instruction moves a whole contiguous run (16-byte aligned at
// both ends, a multiple of 16 bytes), and the barrier's phase completes once the bytes announced by
// mbar_arrive_expect_tx have all landed. Addresses are shared-window (smem_addr) addresses. Only the
// sm_90a kernels use them (tcw_kernel's stages, KBIT_TCW_MBAR); below sm_90 they trap.
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
#else
  __trap();
#endif
}
// After the inits, before any thread or the async proxy uses the barriers (the CTA still needs a
// barrier of its own, __syncthreads, before other threads touch them).
__device__ __forceinline__ void mbar_init_fence() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;\nfence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
#endif
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
#endif
}
__device__ __forceinline__ void bulk_copy_g2s(uint32_t dst, const void* src, uint32_t bytes, uint32_t bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
#else
  __trap();
#endif
}
// Spins until the barrier's phase of the given parity has completed; what it counted (copies,
// arrivals) is then visible to this thread.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n.reg .pred p;\nKBIT_MBAR_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra KBIT_MBAR_WAIT;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
#endif
}

// ---------------------------------------------------------------------------------------------
// Split-K fixup (gemv, tcv, mma; tcw sums its partials with a separate kernel instead, tcw.cu).
// Workspace = [counters: one uint32 per output tile][partials: splits x M x N fp32]. Each slice
// writes its fp32 partial tile; the last slice of a tile to arrive (atomic counter) sums all
// slices in slice order (deterministic), writes C and resets the counter to 0,
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

// The sum of one output element over the K slices, in slice order -- `load(sl)` reads slice sl's
// partial -- with up to B slices' loads in flight at once, whatever the compiler makes of a plain loop
// over a run-time slice count (in tcv's fixup it kept 4 loads per round trip, and summed a thread's
// elements one after another: bench/results/2026-11-26-h100-ncutcv). The adds stay in slice order
// from 0.0f, so the sum is bit for bit the plain loop's. Used by gemv's fixup at M >= 2 and tcv_fixup.
template <int B, class Load>
__device__ __forceinline__ float slice_sum(int splits, Load&& load) {
  float s = 0.0f;
  for (int b = 0; b < splits; b += B) {
    float v[B];
#pragma unroll
    for (int i = 0; i < B; ++i)
      if (b + i < splits) v[i] = load(b + i);
#pragma unroll
    for (int i = 0; i < B; ++i)
      if (b + i < splits) s += v[i];
  }
  return s;
}

// Called by all threads of the CTA after it stored its partial (its own elements) into
// partials + slice * M * N. Returns true in the CTA that must finish the tile, whose threads may
// then read every slice's partials (through L2: __ldcg). One thread counts the arrival with an
// acquire-release atomic at GPU scope: the barrier before it orders the CTA's partial stores before
// its release, and the barrier after it orders the last CTA's reads after its acquire (the
// cooperative-groups grid barrier's pattern). It replaced a sequentially consistent fence
// (__threadfence) in every thread before the barrier and again in the last CTA, where the gemv
// profile of Qwen3-Coder-Next o_proj showed 12% of its stall samples.
__device__ __forceinline__ bool splitk_arrive(const SplitK& sk, int tile) {
  __shared__ int last;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t prev;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;\n"
                 : "=r"(prev)
                 : "l"(sk.counters + tile)
                 : "memory");
    last = prev == static_cast<uint32_t>(sk.splits - 1);
    if (last) sk.counters[tile] = 0;  // reset for the next call (no one else touches it now)
  }
  __syncthreads();
  return last;
}

// Programmatic dependent launch (sm_90; LinearArgs::pdl). A kernel launched with it may start
// while the kernel before it in the stream is still running. pdl_wait() returns once that kernel
// has finished and its memory writes are visible: nothing written by earlier work (A, C, the
// workspace) may be touched before it. pdl_launch_dependents() lets the next launch start early
// (once every CTA of this grid has called it or exited). Both are no-ops on a launch without the
// attribute, and compile to nothing below sm_90.
__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// Launch `kernel` on `grid` through cudaLaunchKernelEx: with a `cluster` shape of more than one CTA
// (sm_90; <= 8 CTAs, the portable cluster size) those CTAs form one thread-block cluster; with `pdl`
// the launch may overlap the previous work in the stream (programmatic stream serialization: the
// kernel must call pdl_wait() before it touches anything that work writes).
template <class... KArgs, class... Args>
cudaError_t launch_cluster_ex(void (*kernel)(KArgs...), dim3 grid, int threads, size_t smem, cudaStream_t stream,
                              dim3 cluster, bool pdl, Args&&... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[2];
  unsigned n = 0;
  if (cluster.x * cluster.y * cluster.z > 1) {
    attr[n].id = cudaLaunchAttributeClusterDimension;
    attr[n].val.clusterDim.x = cluster.x;
    attr[n].val.clusterDim.y = cluster.y;
    attr[n].val.clusterDim.z = cluster.z;
    ++n;
  }
  if (pdl) {
    attr[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[n].val.programmaticStreamSerializationAllowed = 1;
    ++n;
  }
  cfg.attrs = attr;
  cfg.numAttrs = n;
  return cudaLaunchKernelEx(&cfg, kernel, static_cast<Args&&>(args)...);
}

// launch_cluster_ex with cluster_y > 1: the CTAs of each grid column (cluster_y = grid.y of them: the
// K slices of one output tile) form one cluster.
template <class... KArgs, class... Args>
cudaError_t launch_ex(void (*kernel)(KArgs...), dim3 grid, int threads, size_t smem, cudaStream_t stream,
                      unsigned cluster_y, bool pdl, Args&&... args) {
  return launch_cluster_ex(kernel, grid, threads, smem, stream, dim3(1, cluster_y, 1), pdl,
                           static_cast<Args&&>(args)...);
}

// Slice ranges over k-tiles: `splits` slices, every one non-empty (requires splits <= tiles); slice
// s takes steps [tiles * s / splits, tiles * (s + 1) / splits). In 32-bit unsigned
// arithmetic wherever tiles * splits fits (any real K): on the device a 64-bit division is a
// subroutine call (__cuda_sm20_div_s64) at the start of every split-K CTA of gemv, tcv, tcw and mma.
// H100, same call against the 64-bit division (bench/results/2026-11-26-h100-gemvslices/ab): gemv
// 1.010-1.014x, tcv 1.016-1.019x, tcw 1.010-1.011x geomean over the catalogue at M = 1..8, k = 4.
__host__ __device__ inline void slice_range(int64_t tiles, int splits, int s, int64_t& begin, int64_t& end) {
  if (tiles * splits < (int64_t{1} << 32)) {
    const uint32_t t = static_cast<uint32_t>(tiles), n = static_cast<uint32_t>(splits);
    begin = t * static_cast<uint32_t>(s) / n;
    end = t * static_cast<uint32_t>(s + 1) / n;
    return;
  }
  begin = tiles * s / splits;
  end = tiles * (s + 1) / splits;
}

// ---------------------------------------------------------------------------------------------
// MoE work items: expert e with rows r_e gives ceil(r_e / chunk) items. Item `item` -> (expert,
// first row, rows). The total is at most min(E, total_rows) + total_rows / chunk, which the host
// uses as the grid size; surplus CTAs find no item and exit. Called by all THREADS threads of the
// CTA. Thread t owns experts [t * per, (t + 1) * per), per = ceil(E / THREADS): it loads their
// offsets with independent loads -- one memory round trip for E <= kScanPer * THREADS (512
// experts at 128 threads) -- and counts their items; a block-wide scan (warp shuffles, then the
// warp totals through shared memory) gives each thread its first item, and the thread whose range
// holds `item` finds the expert in the same registers. Larger E takes rounds of kScanPer experts
// and reads the owning range's offsets again.
struct WorkItem {
  int expert = -1;
  int row0 = 0;
  int rows = 0;
};

namespace moe_scan {
constexpr int kScanPer = 4;

// o[j] = offsets[e + j] for e + j <= e1 (one load each, all independent). Plain loads through a
// pointer without __restrict__, not __ldg: the offsets may be written by the kernel before
// (MoeArgs::pdl), and the compiler treats an __ldg load as invariant, free to move above
// griddepcontrol.wait -- it did, and the PDL doctest caught the stale offsets. __ldcg (asm
// volatile) kept the order but measured 0.92x (docs/perf-notes.md, "MoE prologue").
__device__ __forceinline__ void load_round(const int32_t* offsets, int e, int e1, int (&o)[kScanPer + 1]) {
#pragma unroll
  for (int j = 0; j <= kScanPer; ++j) o[j] = e + j <= e1 ? offsets[e + j] : 0;
}
// Items of experts [e, min(e + kScanPer, e1)).
__device__ __forceinline__ int count_round(const int (&o)[kScanPer + 1], int e, int e1, int chunk) {
  int items = 0;
#pragma unroll
  for (int j = 0; j < kScanPer; ++j)
    if (e + j < e1) items += (o[j + 1] - o[j] + chunk - 1) / chunk;
  return items;
}
// Finds `item` among the round's experts, whose first item is `base` (advanced past them); true
// once found.
__device__ __forceinline__ bool find_in_round(const int (&o)[kScanPer + 1], int e, int e1, int chunk, int item,
                                              int& base, WorkItem& w) {
#pragma unroll
  for (int j = 0; j < kScanPer; ++j) {
    if (e + j >= e1) return false;
    const int rows = o[j + 1] - o[j], n = (rows + chunk - 1) / chunk;
    if (item < base + n) {
      const int c = item - base;
      w.expert = e + j;
      w.row0 = o[j] + c * chunk;
      w.rows = min(chunk, rows - c * chunk);
      return true;
    }
    base += n;
  }
  return false;
}
}  // namespace moe_scan

// `publish` runs before the first barrier: the caller's shared-memory staging of values it loaded
// before the call (so their loads overlap the offsets' and the stores do not hold them up).
template <int THREADS, class Publish>
__device__ __forceinline__ WorkItem find_work_item(const int32_t* offsets, int E, int chunk, int item,
                                                   Publish&& publish) {
  using namespace moe_scan;
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "whole warps");
  constexpr int kWarps = THREADS / 32;
  __shared__ int warp_items[kWarps];
  __shared__ WorkItem found;
  const int t = static_cast<int>(threadIdx.x), lane = t % 32, warp = t / 32;
  const int per = (E + THREADS - 1) / THREADS;
  const int e0 = min(E, t * per), e1 = min(E, e0 + per);
  int o[kScanPer + 1];
  load_round(offsets, e0, e1, o);  // the first round stays in registers
  int items = count_round(o, e0, e1, chunk);
  for (int e = e0 + kScanPer; e < e1; e += kScanPer) {  // E > kScanPer * THREADS only
    int r[kScanPer + 1];
    load_round(offsets, e, e1, r);
    items += count_round(r, e, e1, chunk);
  }
  int incl = items;  // inclusive scan: the warp's, then the warps before it
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const int v = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane >= d) incl += v;
  }
  if (lane == 31) warp_items[warp] = incl;
  if (t == 0) found = WorkItem{};  // expert -1 unless a thread holds `item`
  publish();
  __syncthreads();
#pragma unroll
  for (int wp = 0; wp < kWarps - 1; ++wp)
    if (wp < warp) incl += warp_items[wp];
  const int excl = incl - items;
  if (item >= excl && item < incl) {  // exactly one thread (none when item >= the total)
    WorkItem w;
    int base = excl;
    if (!find_in_round(o, e0, e1, chunk, item, base, w))
      for (int e = e0 + kScanPer; e < e1; e += kScanPer) {
        int r[kScanPer + 1];
        load_round(offsets, e, e1, r);
        if (find_in_round(r, e, e1, chunk, item, base, w)) break;
      }
    found = w;
  }
  __syncthreads();
  return found;
}
template <int THREADS>
__device__ __forceinline__ WorkItem find_work_item(const int32_t* offsets, int E, int chunk, int item) {
  return find_work_item<THREADS>(offsets, E, chunk, item, [] {});
}

// The one-warp form of the scan (lane l of the first warp owns experts [l * per, (l + 1) * per),
// 8 experts' offsets per round trip; the lane whose range holds `item` re-reads its offsets), kept
// for grouped_mma: with the block-wide scan above ptxas gave its kernels 9-31 more registers
// (96 -> 127 at MT = 2) and GLM-4.7-Flash experts at M = 512, k = 2, 3 ran 10% slower
// (bench/results/2026-11-25-h100-moeprologue/landing). __ldg is safe here: grouped_mma takes no PDL.
__device__ __forceinline__ WorkItem find_work_item_warp(const int32_t* __restrict__ offsets, int E, int chunk,
                                                        int item) {
  __shared__ WorkItem found;
  if (threadIdx.x < 32) {
    const int lane = threadIdx.x;
    const int per = (E + 31) / 32;
    const int e0 = min(E, lane * per), e1 = min(E, e0 + per);
    int items = 0;
    for (int e = e0; e < e1; e += 8) {  // 8 experts' offsets in flight per round trip
      int o[9];
#pragma unroll
      for (int j = 0; j < 9; ++j) o[j] = e + j <= e1 ? __ldg(offsets + e + j) : 0;
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if (e + j < e1) items += (o[j + 1] - o[j] + chunk - 1) / chunk;
    }
    int incl = items;  // inclusive warp scan
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const int v = __shfl_up_sync(0xffffffffu, incl, d);
      if (lane >= d) incl += v;
    }
    const int excl = incl - items, total = __shfl_sync(0xffffffffu, incl, 31);
    WorkItem w;
    if (item >= excl && item < incl) {  // exactly one lane (none when item >= the total)
      int base = excl;
      for (int e = e0; e < e1; ++e) {
        const int begin = __ldg(offsets + e), rows = __ldg(offsets + e + 1) - begin;
        const int n = (rows + chunk - 1) / chunk;
        if (item < base + n) {
          const int c = item - base;
          w.expert = e;
          w.row0 = begin + c * chunk;
          w.rows = min(chunk, rows - c * chunk);
          break;
        }
        base += n;
      }
      found = w;
    }
    if (lane == 0 && item >= total) found = w;  // no such item: expert -1
  }
  __syncthreads();
  return found;
}

// lib/kbit/moe_sched.h, under the names the launchers and api.cu use.
using kbit::moe_max_items;
using kbit::moe_mean_rows;
using kbit::moe_rows_hint;

}  // namespace kbit::gpu::detail
