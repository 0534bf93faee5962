// The plain "v0" kernels: one readable kernel per family, written for obviousness rather than
// speed, as a second oracle next to the CPU reference. Every element is decoded through the same
// TiledView::index_at / absmax_at the host uses.
#include "common.cuh"
#include "launch.h"

namespace kbit::gpu::detail {

// Dense v0: one warp per output element (m, n); lanes stride over k; warp-sum; fp32 throughout.
template <Act ACT>
__global__ void v0_linear_kernel(const typename ActTraits<ACT>::T* __restrict__ A,
                                 typename ActTraits<ACT>::T* __restrict__ C, int64_t M, TiledView w) {
  using Tr = ActTraits<ACT>;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= M * w.N) return;
  const int64_t m = warp / w.N, n = warp % w.N;
  float acc = 0.0f;
  for (int64_t kk = lane; kk < w.K; kk += 32) {
    const float wv = w.codebook[w.index_at(0, n, kk)] * e4m4_decode(w.absmax_at(0, n, kk / kBlockSize));
    acc += Tr::to_float(A[m * w.K + kk]) * wv;
  }
  for (int d = 16; d > 0; d >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, d);
  if (lane == 0) C[m * w.N + n] = Tr::from_float(acc);
}

// MoE v0: one warp per (row, n); the row's expert is found by binary search in the offsets.
template <Act ACT>
__global__ void v0_moe_kernel(const typename ActTraits<ACT>::T* __restrict__ A,
                              typename ActTraits<ACT>::T* __restrict__ C, const int32_t* __restrict__ offsets,
                              int64_t rows, TiledView w) {
  using Tr = ActTraits<ACT>;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= rows * w.N) return;
  const int64_t r = warp / w.N, n = warp % w.N;
  int lo = 0, hi = static_cast<int>(w.E);  // find e with offsets[e] <= r < offsets[e + 1]
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (offsets[mid] <= r) lo = mid; else hi = mid;
  }
  const int64_t e = lo;
  float acc = 0.0f;
  for (int64_t kk = lane; kk < w.K; kk += 32) {
    const float wv = w.codebook[w.index_at(e, n, kk)] * e4m4_decode(w.absmax_at(e, n, kk / kBlockSize));
    acc += Tr::to_float(A[r * w.K + kk]) * wv;
  }
  for (int d = 16; d > 0; d >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, d);
  if (lane == 0) C[r * w.N + n] = Tr::from_float(acc);
}

// Dequantize v0: one thread per element.
template <typename Out>
__global__ void v0_dequant_kernel(TiledView w, Out* __restrict__ out) {
  const int64_t total = w.E * w.N * w.K;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const int64_t e = i / (w.N * w.K), n = (i / w.K) % w.N, kk = i % w.K;
  const float v = w.codebook[w.index_at(e, n, kk)] * e4m4_decode(w.absmax_at(e, n, kk / kBlockSize));
  if constexpr (sizeof(Out) == 4) out[i] = v;
  else if constexpr (std::is_same_v<Out, __half>) out[i] = __float2half_rn(v);
  else out[i] = __float2bfloat16_rn(v);
}

namespace {
constexpr int kV0Threads = 256;
int64_t warp_blocks(int64_t warps) { return (warps * 32 + kV0Threads - 1) / kV0Threads; }
}  // namespace

cudaError_t launch_v0_linear(const LinearArgs& a) {
  const int64_t blocks = warp_blocks(a.M * a.w.N);
  if (blocks == 0) return cudaSuccess;
  if (a.act == Act::f16)
    v0_linear_kernel<Act::f16><<<blocks, kV0Threads, 0, a.stream>>>(
        static_cast<const __half*>(a.A), static_cast<__half*>(a.C), a.M, a.w);
  else
    v0_linear_kernel<Act::bf16><<<blocks, kV0Threads, 0, a.stream>>>(
        static_cast<const __nv_bfloat16*>(a.A), static_cast<__nv_bfloat16*>(a.C), a.M, a.w);
  return cudaGetLastError();
}

cudaError_t launch_v0_moe(const MoeArgs& a) {
  const int64_t blocks = warp_blocks(a.total_rows * a.w.N);
  if (blocks == 0) return cudaSuccess;
  if (a.act == Act::f16)
    v0_moe_kernel<Act::f16><<<blocks, kV0Threads, 0, a.stream>>>(
        static_cast<const __half*>(a.A), static_cast<__half*>(a.C), a.expert_offsets, a.total_rows, a.w);
  else
    v0_moe_kernel<Act::bf16><<<blocks, kV0Threads, 0, a.stream>>>(
        static_cast<const __nv_bfloat16*>(a.A), static_cast<__nv_bfloat16*>(a.C), a.expert_offsets,
        a.total_rows, a.w);
  return cudaGetLastError();
}

cudaError_t launch_v0_dequant(const TiledView& w, void* out, OutType type, cudaStream_t stream) {
  const int64_t total = w.E * w.N * w.K;
  const int64_t blocks = (total + kV0Threads - 1) / kV0Threads;
  switch (type) {
    case OutType::f32: v0_dequant_kernel<<<blocks, kV0Threads, 0, stream>>>(w, static_cast<float*>(out)); break;
    case OutType::f16: v0_dequant_kernel<<<blocks, kV0Threads, 0, stream>>>(w, static_cast<__half*>(out)); break;
    case OutType::bf16:
      v0_dequant_kernel<<<blocks, kV0Threads, 0, stream>>>(w, static_cast<__nv_bfloat16*>(out));
      break;
  }
  return cudaGetLastError();
}

}  // namespace kbit::gpu::detail
