// The scalar GEMV's MoE form (MoeKernel::grouped_gemv): every expert of a projection in one launch, work items
// (expert, up to MV of its rows) found on the device from the expert offsets, each CTA one item and one tile of 64
// output rows through gemv_common.cuh's gemv_tile.
#include "gemv_common.cuh"

namespace kbit::gpu::detail {

// Grouped: blockIdx.x is a work item (expert, up to MV consecutive rows of that expert),
// blockIdx.y the tile of 64 output rows.
template <Act ACT, int KB, int MV>
__global__ void __launch_bounds__(kGemvThreads, kGemvMinBlocks<KB, MV, true>) grouped_gemv_kernel(
    const typename ActTraits<ACT>::T* __restrict__ A, typename ActTraits<ACT>::T* __restrict__ C,
    const int32_t* offsets, TiledView w) {
  using Tr = ActTraits<ACT>;
  __shared__ float cb_s[1 << KB];
  __shared__ float2 pair_s[kUsePairs<KB, MV> ? 16 : 1];
  __shared__ float red[kGemvWarps][MV][kGemvRows];
  // The codebook is loaded before the wait -- it is part of the weights, which the work before
  // does not write (MoeArgs::pdl) -- and stored at the offsets scan's first barrier, so its round
  // trip overlaps the scan's (bench/results/2026-11-25-h100-moeprologue).
  const int t = threadIdx.x;
  float cb_v = 0.0f;
  float2 pair_v = make_float2(0.0f, 0.0f);
  if (t < (1 << KB)) cb_v = w.codebook[t];
  if (kUsePairs<KB, MV> && t < 16) pair_v = make_float2(w.codebook[t & 3], w.codebook[t >> 2]);
  pdl_wait();  // MoeArgs::pdl: the offsets, A and C only after the previous work in the stream
  const WorkItem item = find_work_item<kGemvThreads>(offsets, static_cast<int>(w.E), MV, blockIdx.x, [&] {
    if (t < (1 << KB)) cb_s[t] = cb_v;
    if (kUsePairs<KB, MV> && t < 16) pair_s[t] = pair_v;
  });
  if (item.expert < 0) return;

  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * kGemvRows;
  gemv_tile<ACT, KB, MV, false, MV == 1>([] {}, A + static_cast<int64_t>(item.row0) * w.K, w.packed + item.expert * w.expert_words(),
                         w.absmax + item.expert * w.expert_absmax(), cb_s, pair_s, w.N, w.K, item.rows, n0, 0,
                         k_tiles(w.K), red);
  pdl_launch_dependents();  // after the main loop, as the busy dense plans
  const int64_t n = n0 + t;
  if (t < kGemvRows && n < w.N)
#pragma unroll
    for (int m = 0; m < MV; ++m)
      if (m < item.rows)
        C[(item.row0 + m) * w.N + n] = Tr::from_float(red[0][m][t] + red[1][m][t] + red[2][m][t] + red[3][m][t]);
}

namespace {

template <Act ACT, int KB, int MV>
cudaError_t launch_grouped(const MoeArgs& a) {
  using T = typename ActTraits<ACT>::T;
  const int64_t items = moe_max_items(a.w.E, a.total_rows, MV);
  if (items == 0) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>(items), static_cast<unsigned>((a.w.N + kGemvRows - 1) / kGemvRows));
  return launch_ex(grouped_gemv_kernel<ACT, KB, MV>, grid, kGemvThreads, 0, a.stream, 1, a.pdl,
                   static_cast<const T*>(a.A), static_cast<T*>(a.C), a.expert_offsets, a.w);
}

template <Act ACT, int KB>
cudaError_t launch_grouped_m(const MoeArgs& a) {
  // Rows per work item: the expected rows per active expert (1..4).
  const int hint = a.max_rows_per_expert_hint;
  if (hint == 1) return launch_grouped<ACT, KB, 1>(a);
  if (hint == 2) return launch_grouped<ACT, KB, 2>(a);
  return launch_grouped<ACT, KB, 4>(a);
}

template <Act ACT>
cudaError_t launch_grouped_k(const MoeArgs& a) {
  return with_bits(a.w.bits, cudaErrorInvalidValue,
                   [&](auto kb) { return launch_grouped_m<ACT, decltype(kb)::value>(a); });
}

}  // namespace

cudaError_t launch_grouped_gemv(const MoeArgs& a) {
  return a.act == Act::f16 ? launch_grouped_k<Act::f16>(a) : launch_grouped_k<Act::bf16>(a);
}

}  // namespace kbit::gpu::detail
