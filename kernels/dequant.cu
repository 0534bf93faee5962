// Dequantize tiled kbit weights to row-major fp16 / bf16 / fp32 [E, N, K].
// One thread per quantization block, threads in storage order: a warp reads 32 consecutive
// blocks' words (fully coalesced) and each thread writes its block's 32 outputs as whole 16-byte
// vectors (whole sectors), so both directions use every byte they move.
#include "common.cuh"
#include "launch.h"

namespace kbit::gpu::detail {

template <int KB, typename Out>
__global__ void __launch_bounds__(256) dequant_kernel(TiledView w, Out* __restrict__ out) {
  const int64_t kt_count = k_tiles(w.K);
  const int64_t blocks_per_expert = kt_count * w.N * kBlocksPerTile;
  const int64_t g = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= w.E * blocks_per_expert) return;
  const int64_t e = g / blocks_per_expert;
  const int64_t r = g % blocks_per_expert;  // ((kt * N + n) * 2 + h)
  const int h = static_cast<int>(r % kBlocksPerTile);
  const int64_t n = (r / kBlocksPerTile) % w.N;
  const int64_t kt = r / (kBlocksPerTile * w.N);
  const int64_t kb = kt * kBlocksPerTile + h;
  if (kb >= k_blocks(w.K)) return;  // the zero pad block of K % 64 == 32

  uint32_t words[KB];
  const uint32_t* src = w.packed + e * w.expert_words() + r * KB;
#pragma unroll
  for (int b = 0; b < KB; ++b) words[b] = __ldg(src + b);
  const float scale = e4m4_decode(w.absmax[e * w.expert_absmax() + r]);
  const float* cb = w.codebook;  // 2^k floats: L1-resident after the first warps

  Out* dst = out + (e * w.N + n) * w.K + kb * kBlockSize;
  if constexpr (sizeof(Out) == 4) {
#pragma unroll
    for (int j = 0; j < kBlockSize; j += 4) {
      float4 v;
      v.x = __ldg(cb + block_index<KB>(words, j + 0)) * scale;
      v.y = __ldg(cb + block_index<KB>(words, j + 1)) * scale;
      v.z = __ldg(cb + block_index<KB>(words, j + 2)) * scale;
      v.w = __ldg(cb + block_index<KB>(words, j + 3)) * scale;
      reinterpret_cast<float4*>(dst)[j / 4] = v;
    }
  } else {
    using Tr = ActTraits<std::is_same_v<Out, __half> ? Act::f16 : Act::bf16>;
#pragma unroll
    for (int j = 0; j < kBlockSize; j += 8) {
      typename Tr::T2 v[4];
#pragma unroll
      for (int p = 0; p < 4; ++p)
        v[p] = Tr::from_float2(__ldg(cb + block_index<KB>(words, j + 2 * p)) * scale,
                               __ldg(cb + block_index<KB>(words, j + 2 * p + 1)) * scale);
      reinterpret_cast<uint4*>(dst)[j / 8] = *reinterpret_cast<const uint4*>(v);
    }
  }
}

template <typename Out>
static cudaError_t launch_typed(const TiledView& w, Out* out, cudaStream_t stream) {
  const int64_t blocks = w.E * k_tiles(w.K) * w.N * kBlocksPerTile;
  const int threads = 256;
  const int64_t grid = (blocks + threads - 1) / threads;
  if (grid == 0) return cudaSuccess;
  return with_bits(w.bits, cudaErrorInvalidValue, [&](auto kb) {
    dequant_kernel<decltype(kb)::value><<<grid, threads, 0, stream>>>(w, out);
    return cudaGetLastError();
  });
}

cudaError_t launch_dequant(const TiledView& w, void* out, OutType type, cudaStream_t stream) {
  switch (type) {
    case OutType::f32: return launch_typed(w, static_cast<float*>(out), stream);
    case OutType::f16: return launch_typed(w, static_cast<__half*>(out), stream);
    case OutType::bf16: return launch_typed(w, static_cast<__nv_bfloat16*>(out), stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace kbit::gpu::detail
