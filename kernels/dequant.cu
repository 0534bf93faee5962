// Dequantize tiled kbit weights to row-major fp16 / bf16 / fp32 [E, N, K].
// A warp takes one 64-k tile of 16 rows: its 32 lanes read the tile's 32 consecutive blocks (lane =
// row * 2 + h, the storage order, so the words come in one coalesced stretch), decode their block
// by codebook byte offsets (block_offsets: a PRMT and a shared-memory load per weight, the fp32
// product rounded once to the output type), and stage the 16 output row pieces (128 bytes each in
// fp16) in shared memory, from where the warp stores them as whole 128-byte lines, 512 contiguous
// bytes per store instruction. A CTA's warps take 8 consecutive k tiles of the same 16 rows.
// The previous kernel (one thread per block, 16-byte stores of each thread's own row piece, codebook
// read through L1 per weight) ran at ~1.2 ns per 1000 weights at k = 2..4 and ~2.8 at k = 5 on the
// H100's largest catalogue shape (bench/results/2026-11-27-h100-laudit, dequant_cublas against cuBLAS);
// this one took dequant_cublas 1.12-1.27x faster at k = 2, 4 and 1.28-1.51x at k = 5 (geomeans over the
// catalogue at M = 128 and 1024, every row faster: bench/results/2026-11-27-h100-dequant).
#include "common.cuh"
#include "launch.h"

namespace kbit::gpu::detail {
namespace {

constexpr int kDqWarps = 8;                  // k tiles per CTA
constexpr int kDqThreads = 32 * kDqWarps;
constexpr int kDqRows = 16;                  // rows per warp (two blocks of each per k tile)
static_assert(kDequantMaxKTiles == int64_t{65535} * kDqWarps, "launch.h's bound is this grid's");

// The 16-byte chunk of a warp's staging area that holds chunk c of output row `row` (16 chunks per
// row at fp32, 8 at 16 bits): the chunk index XOR the row's low three bits, so the 8 lanes of a
// 128-bit shared-memory phase write (and later read) 8 different bank groups.
template <int kChunksPerRow>
__device__ __forceinline__ int stage_chunk(int row, int c) {
  return row * kChunksPerRow + (c ^ (row & 7));
}

template <int KB, typename Out>
__global__ void __launch_bounds__(kDqThreads) dequant_kernel(TiledView w, Out* __restrict__ out, uint32_t row_groups) {
  constexpr int kChunksPerRow = kTileK * static_cast<int>(sizeof(Out)) / 16;  // 8 (16-bit) or 16 (fp32)
  constexpr int kChunksPerBlock = kChunksPerRow / kBlocksPerTile;
  constexpr int kElemsPerChunk = 16 / static_cast<int>(sizeof(Out));
  __shared__ alignas(256) float cb_s[1 << KB];
  __shared__ uint4 stage[kDqWarps][kDqRows * kChunksPerRow];

  stage_codebook<KB>(w.codebook, cb_s);
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t kt_count = k_tiles(w.K);
  const int64_t kt = static_cast<int64_t>(blockIdx.y) * kDqWarps + warp;
  if (kt >= kt_count) return;  // whole warps only: no barrier follows
  const uint32_t eq = blockIdx.x / row_groups;  // 32-bit: the grid's x is
  const int64_t e = eq;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x - eq * row_groups) * kDqRows;
  const int row = lane / kBlocksPerTile, h = lane % kBlocksPerTile;
  const int64_t n = n0 + row;
  // The zero pad block of K % 64 == 32 (the last tile's h = 1) is not written.
  const bool pad_half = (kt + 1) * kBlocksPerTile > k_blocks(w.K);

  uint4* st = stage[warp];
  if (n < w.N) {
    const int64_t r = (kt * w.N + n) * kBlocksPerTile + h;  // the block, in storage order
    uint32_t words[KB];
    load_block_words<KB>(w.packed + e * w.expert_words() + r * KB, words);
    const float scale = e4m4_decode(w.absmax[e * w.expert_absmax() + r]);
    uint32_t E[4], O[4];
    block_offsets<KB>(words, E, O);
    const uint32_t base = smem_addr(cb_s);
#pragma unroll
    for (int c = 0; c < kBlockSize / 8; ++c) {  // elements 8c .. 8c + 7 of the block
      float v[8];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        v[i] = cb_lds(base, E[i], c) * scale;      // element 8c + i
        v[4 + i] = cb_lds(base, O[i], c) * scale;  // element 8c + 4 + i
      }
      if constexpr (sizeof(Out) == 4) {
        st[stage_chunk<kChunksPerRow>(row, h * kChunksPerBlock + 2 * c)] = make_uint4(
            __float_as_uint(v[0]), __float_as_uint(v[1]), __float_as_uint(v[2]), __float_as_uint(v[3]));
        st[stage_chunk<kChunksPerRow>(row, h * kChunksPerBlock + 2 * c + 1)] = make_uint4(
            __float_as_uint(v[4]), __float_as_uint(v[5]), __float_as_uint(v[6]), __float_as_uint(v[7]));
      } else {
        using Tr = ActTraits<std::is_same_v<Out, __half> ? Act::f16 : Act::bf16>;
        typename Tr::T2 p[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) p[i] = Tr::from_float2(v[2 * i], v[2 * i + 1]);
        st[stage_chunk<kChunksPerRow>(row, h * kChunksPerBlock + c)] = *reinterpret_cast<const uint4*>(p);
      }
    }
  }
  __syncwarp();
  // The 16 row pieces, 32 chunks (512 contiguous bytes of 2 or 4 rows) per store.
  Out* dst0 = out + (e * w.N + n0) * w.K + kt * kTileK;
#pragma unroll
  for (int it = 0; it < kChunksPerRow / 2; ++it) {
    const int idx = it * 32 + lane;
    const int orow = idx / kChunksPerRow, c = idx % kChunksPerRow;
    if (n0 + orow < w.N && !(pad_half && c >= kChunksPerBlock))
      *reinterpret_cast<uint4*>(dst0 + orow * w.K + c * kElemsPerChunk) = st[stage_chunk<kChunksPerRow>(orow, c)];
  }
}

template <typename Out>
cudaError_t launch_typed(const TiledView& w, Out* out, cudaStream_t stream) {
  const int64_t row_groups = (w.N + kDqRows - 1) / kDqRows;
  const int64_t x = w.E * row_groups, y = (k_tiles(w.K) + kDqWarps - 1) / kDqWarps;
  if (x == 0 || y == 0) return cudaSuccess;
  if (x > 0x7FFFFFFF || !dequant_fits(w)) return cudaErrorInvalidConfiguration;  // y <= 65535
  return with_bits(w.bits, cudaErrorInvalidValue, [&](auto kb) {
    dequant_kernel<decltype(kb)::value><<<dim3(static_cast<unsigned>(x), static_cast<unsigned>(y)), kDqThreads, 0,
                                          stream>>>(w, out, static_cast<uint32_t>(row_groups));
    return cudaGetLastError();
  });
}

}  // namespace

cudaError_t launch_dequant(const TiledView& w, void* out, OutType type, cudaStream_t stream) {
  switch (type) {
    case OutType::f32: return launch_typed(w, static_cast<float*>(out), stream);
    case OutType::f16: return launch_typed(w, static_cast<__half*>(out), stream);
    case OutType::bf16: return launch_typed(w, static_cast<__nv_bfloat16*>(out), stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace kbit::gpu::detail
