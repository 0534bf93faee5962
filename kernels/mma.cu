// Tensor-core fused-dequant GEMM (mma.sync m16n8k16, fp32 accumulation) and its grouped MoE form.
//
// "Dequantize during fetch" (seeds 000 §3, 002): per k-tile of 64, cp.async brings the A tile
// [TM x 64] and the raw bit-plane tile [64 rows x 2 blocks x k words] + absmax bytes into shared
// memory (3 stages deep). The CTA then decodes the raw tile once into a dequantized fp16/bf16 B
// tile [64 n x 64 k] (one quantization block per thread) and the MMA loop is pure ldmatrix + mma.
// Each B element is decoded once per CTA and reused by all TM/16 m16 tiles.
//
// CTA: 4 warps; warp w owns output columns [16 w, 16 w + 16) of the tile (two n8 tiles) for all
// rows. Split-K over k-tiles with a deterministic fixup (common.cuh); every slice is non-empty.
// Shared-memory layouts: lib/kbit/smem_layout.h (checked by kbit-fragcheck).
#include "common.cuh"
#include "launch.h"
#include "kbit/smem_layout.h"

namespace kbit::gpu::detail {

namespace {
constexpr int kMmaThreads = 128;
constexpr int kTN = 64;   // output columns (weight rows n) per CTA
constexpr int kStages = 3;

template <int MT, int KB>
struct MmaSmem {
  static constexpr int kTM = 16 * MT;
  static constexpr int a_bytes = kTM * kTileK * 2;                 // A tile, swizzled
  static constexpr int raw_words = smem::bp_tile_words(kTN, KB, false);  // bit planes (plain)
  static constexpr int absmax_bytes = kTN * kBlocksPerTile + 8;    // + window slack
  static constexpr int stage_bytes = (a_bytes + raw_words * 4 + absmax_bytes + 127) / 128 * 128;
  static constexpr int b_bytes = kTN * kTileK * 2;                 // dequantized B tile
  static constexpr int total = kStages * stage_bytes + b_bytes + 32 * 4;  // + codebook
};

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(smem)));
}

// The problem one CTA works on.
struct Problem {
  const void* A;            // first activation row of this CTA's rows
  void* C;                  // first output row
  int rows;                 // activation rows (<= TM)
  const uint32_t* packed;   // this expert's words
  const uint8_t* absmax;    // this expert's absmax bytes
  int64_t N, K;
  int64_t n0;               // first output column
  int64_t kt_begin, kt_end;
};

template <Act ACT, int KB, int MT>
__device__ __forceinline__ void issue_stage(const Problem& p, char* stage, int64_t kt, bool vec_words) {
  using S = MmaSmem<MT, KB>;
  using T = typename ActTraits<ACT>::T;
  const int t = threadIdx.x;
  // A tile: TM rows x 8 chunks of 16 bytes.
  const T* A = static_cast<const T*>(p.A);
  __half* a_s = reinterpret_cast<__half*>(stage);
#pragma unroll
  for (int i = t; i < S::kTM * 8; i += kMmaThreads) {
    const int r = i / 8, c = i % 8;
    const int64_t col = kt * kTileK + c * 8;
    const bool valid = r < p.rows && col < p.K;
    const T* src = valid ? A + r * p.K + col : A;
    cp_async16(a_s + smem::a_cp_async_chunk_offset(i), src, valid);
  }
  // Raw bit planes of rows n0 .. n0 + 63 (contiguous in the tiled layout for a fixed kt).
  uint32_t* raw = reinterpret_cast<uint32_t*>(stage + S::a_bytes);
  const int64_t rows_n = p.N - p.n0 < kTN ? p.N - p.n0 : kTN;
  const int64_t words = rows_n * kBlocksPerTile * KB;
  const uint32_t* src_w = p.packed + (kt * p.N + p.n0) * kBlocksPerTile * KB;
  if (vec_words && words == S::raw_words) {
    for (int i = t; i < smem::bp_cp_async_chunks(kTN, KB); i += kMmaThreads)
      cp_async16(raw + smem::bp_cp_async_dst_word(i, KB, false), src_w + 4 * i, true);
  } else {
    for (int i = t; i < S::raw_words; i += kMmaThreads)
      cp_async4(raw + smem::bp_storage_word(i, KB, false), i < words ? src_w + i : src_w, i < words ? 4 : 0);
  }
  // Absmax bytes through an aligned window of 4-byte words; byte `shift` is the first one.
  uint8_t* am = reinterpret_cast<uint8_t*>(stage + S::a_bytes + S::raw_words * 4);
  const uint8_t* first = p.absmax + (kt * p.N + p.n0) * kBlocksPerTile;
  const uint8_t* window = reinterpret_cast<const uint8_t*>(reinterpret_cast<uintptr_t>(first) & ~uintptr_t(3));
  const uint8_t* end = p.absmax + k_tiles(p.K) * p.N * kBlocksPerTile;
  const int need = static_cast<int>(first - window) + static_cast<int>(rows_n) * kBlocksPerTile;
  for (int i = t; i < (need + 3) / 4; i += kMmaThreads) {
    const uint8_t* src = window + 4 * i;
    if (end - src >= 4) {
      cp_async4(am + 4 * i, src, 4);
    } else {  // the expert's last bytes: plain loads, never a 4-byte access past its end
      for (int j = 0; j < 4; ++j) am[4 * i + j] = src + j < end ? src[j] : uint8_t(0);
    }
  }
}

// Decode the raw tile of one stage into the dequantized B tile (one block per thread).
template <Act ACT, int KB, int MT>
__device__ __forceinline__ void decode_stage(const Problem& p, const char* stage, __half* b_s, const float* cb_s,
                                             int64_t kt) {
  using S = MmaSmem<MT, KB>;
  using Tr = ActTraits<ACT>;
  const int t = threadIdx.x;
  const smem::DeqBlock blk = smem::deq_thread_block(t);
  const int row = blk.n, h = blk.h;
  const uint32_t* raw = reinterpret_cast<const uint32_t*>(stage + S::a_bytes);
  const uint8_t* am = reinterpret_cast<const uint8_t*>(stage + S::a_bytes + S::raw_words * 4);
  const uint8_t* first = p.absmax + (kt * p.N + p.n0) * kBlocksPerTile;
  const int shift = static_cast<int>(reinterpret_cast<uintptr_t>(first) & 3);
  uint32_t w[KB];
  load_block_words_shared<KB>(raw + smem::bp_word_offset(row, h, 0, KB, false), w);
  const bool valid = p.n0 + row < p.N;
  const float scale = valid ? e4m4_decode(am[shift + smem::bp_absmax_offset(row, h)]) : 0.0f;
  uint32_t E[4], O[4];
  block_offsets<KB>(w, E, O);
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    // Elements 8q .. 8q+7: 8q + r from E[r], 8q + 4 + r from O[r].
    typename Tr::T2 v[4];
    v[0] = Tr::from_float2(cb_byte(cb_s, E[0], q) * scale, cb_byte(cb_s, E[1], q) * scale);
    v[1] = Tr::from_float2(cb_byte(cb_s, E[2], q) * scale, cb_byte(cb_s, E[3], q) * scale);
    v[2] = Tr::from_float2(cb_byte(cb_s, O[0], q) * scale, cb_byte(cb_s, O[1], q) * scale);
    v[3] = Tr::from_float2(cb_byte(cb_s, O[2], q) * scale, cb_byte(cb_s, O[3], q) * scale);
    *reinterpret_cast<uint4*>(b_s + smem::b_tile_offset(row, h * 32 + q * 8)) = *reinterpret_cast<const uint4*>(v);
  }
}

template <Act ACT, int KB, int MT>
__device__ __forceinline__ void mma_tile(const Problem& p, char* smem, const float* cb_s, bool vec_words,
                                         float (&acc)[MT][2][4]) {
  using S = MmaSmem<MT, KB>;
  __half* b_s = reinterpret_cast<__half*>(smem + kStages * S::stage_bytes);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[mt][j][r] = 0.0f;

  const int64_t count = p.kt_end - p.kt_begin;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < count) issue_stage<ACT, KB, MT>(p, smem + s * S::stage_bytes, p.kt_begin + s, vec_words);
    cp_async_commit();
  }
  for (int64_t i = 0; i < count; ++i) {
    cp_async_wait<kStages - 2>();
    __syncthreads();  // stage i landed for everyone; everyone is done with iteration i - 1
    if (i + kStages - 1 < count)
      issue_stage<ACT, KB, MT>(p, smem + ((i + kStages - 1) % kStages) * S::stage_bytes,
                               p.kt_begin + i + kStages - 1, vec_words);
    cp_async_commit();
    const char* stage = smem + (i % kStages) * S::stage_bytes;
    decode_stage<ACT, KB, MT>(p, stage, b_s, cb_s, p.kt_begin + i);
    __syncthreads();
    const __half* a_s = reinterpret_cast<const __half*>(stage);
#pragma unroll
    for (int ks = 0; ks < kTileK / 16; ++ks) {
      uint32_t b[4];
      ldmatrix_x4(b, b_s + smem::b_ldmatrix_x4_offset(lane, 16 * warp, 16 * ks));
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        uint32_t a[4];
        ldmatrix_x4(a, a_s + smem::a_ldmatrix_x4_offset(lane, 16 * mt, 16 * ks));
        mma16816<ACT>(acc[mt][0], a, b[0], b[1]);
        mma16816<ACT>(acc[mt][1], a, b[2], b[3]);
      }
    }
  }
  cp_async_wait<0>();
}

// Visit this thread's accumulator elements: f(mt, j, r, row, col) with row/col in the CTA tile.
template <int MT, typename F>
__device__ __forceinline__ void for_each_acc(F&& f) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, q = lane % 4;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) f(mt, j, r, 16 * mt + g + 8 * (r / 2), 16 * warp + 8 * j + 2 * q + (r % 2));
}

}  // namespace

template <Act ACT, int KB, int MT>
__global__ void __launch_bounds__(kMmaThreads) mma_kernel(const typename ActTraits<ACT>::T* __restrict__ A,
                                                         typename ActTraits<ACT>::T* __restrict__ C, int64_t M,
                                                         TiledView w, SplitK sk, bool vec_words) {
  using Tr = ActTraits<ACT>;
  using S = MmaSmem<MT, KB>;
  extern __shared__ __align__(128) char smem[];
  float* cb_s = reinterpret_cast<float*>(smem + kStages * S::stage_bytes + S::b_bytes);
  stage_codebook<KB>(w.codebook, cb_s);

  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * S::kTM;
  Problem p;
  p.A = A + m0 * w.K;
  p.C = C + m0 * w.N;
  p.rows = static_cast<int>(M - m0 < S::kTM ? M - m0 : S::kTM);
  p.packed = w.packed;
  p.absmax = w.absmax;
  p.N = w.N;
  p.K = w.K;
  p.n0 = static_cast<int64_t>(blockIdx.x) * kTN;
  slice_range(k_tiles(w.K), sk.splits, blockIdx.z, p.kt_begin, p.kt_end);
  __syncthreads();

  float acc[MT][2][4];
  mma_tile<ACT, KB, MT>(p, smem, cb_s, vec_words, acc);

  typename Tr::T* Cp = static_cast<typename Tr::T*>(p.C);
  if (sk.splits == 1) {
    for_each_acc<MT>([&](int mt, int j, int r, int row, int col) {
      if (row < p.rows && p.n0 + col < p.N) Cp[row * p.N + p.n0 + col] = Tr::from_float(acc[mt][j][r]);
    });
    return;
  }
  const int64_t MN = M * w.N;
  float* part = sk.partials + blockIdx.z * MN + m0 * w.N;
  for_each_acc<MT>([&](int mt, int j, int r, int row, int col) {
    if (row < p.rows && p.n0 + col < p.N) part[row * p.N + p.n0 + col] = acc[mt][j][r];
  });
  if (!splitk_arrive(sk, blockIdx.y * gridDim.x + blockIdx.x)) return;
  for_each_acc<MT>([&](int, int, int, int row, int col) {
    if (row < p.rows && p.n0 + col < p.N) {
      const float* src = sk.partials + m0 * w.N + row * p.N + p.n0 + col;
      float s = 0.0f;
      for (int sl = 0; sl < sk.splits; ++sl) s += __ldcg(src + sl * MN);
      Cp[row * p.N + p.n0 + col] = Tr::from_float(s);
    }
  });
}

// Grouped: blockIdx.x = work item (expert, up to TM rows), blockIdx.y = column tile. No split-K.
template <Act ACT, int KB, int MT>
__global__ void __launch_bounds__(kMmaThreads) grouped_mma_kernel(const typename ActTraits<ACT>::T* __restrict__ A,
                                                                 typename ActTraits<ACT>::T* __restrict__ C,
                                                                 const int32_t* __restrict__ offsets, TiledView w) {
  using Tr = ActTraits<ACT>;
  using S = MmaSmem<MT, KB>;
  extern __shared__ __align__(128) char smem[];
  float* cb_s = reinterpret_cast<float*>(smem + kStages * S::stage_bytes + S::b_bytes);
  const WorkItem item = find_work_item_warp(offsets, static_cast<int>(w.E), S::kTM, blockIdx.x);
  if (item.expert < 0) return;
  stage_codebook<KB>(w.codebook, cb_s);

  Problem p;
  p.A = A + static_cast<int64_t>(item.row0) * w.K;
  p.C = C + static_cast<int64_t>(item.row0) * w.N;
  p.rows = item.rows;
  p.packed = w.packed + item.expert * w.expert_words();
  p.absmax = w.absmax + item.expert * w.expert_absmax();
  p.N = w.N;
  p.K = w.K;
  p.n0 = static_cast<int64_t>(blockIdx.y) * kTN;
  p.kt_begin = 0;
  p.kt_end = k_tiles(w.K);
  __syncthreads();
  // 16-byte word copies need every k-tile's run to start 16-byte aligned, expert bases included.
  const bool vec_words = (w.N * KB) % 2 == 0 && (w.expert_words() % 4) == 0 &&
                         (reinterpret_cast<uintptr_t>(w.packed) % 16) == 0;

  float acc[MT][2][4];
  mma_tile<ACT, KB, MT>(p, smem, cb_s, vec_words, acc);
  typename Tr::T* Cp = static_cast<typename Tr::T*>(p.C);
  for_each_acc<MT>([&](int mt, int j, int r, int row, int col) {
    if (row < p.rows && p.n0 + col < p.N) Cp[row * p.N + p.n0 + col] = Tr::from_float(acc[mt][j][r]);
  });
}

// ---------------------------------------------------------------------------------------------
namespace {

int mt_for_rows(int64_t rows) { return rows <= 16 ? 1 : rows <= 32 ? 2 : 4; }

int mma_splits(int64_t M, const TiledView& w) {
  const int MT = mt_for_rows(M);
  const int64_t tiles = ((w.N + kTN - 1) / kTN) * ((M + 16 * MT - 1) / (16 * MT));
  const int64_t kt = k_tiles(w.K);
  const int64_t target = 2LL * device_sm_count();
  int64_t splits = (target + tiles - 1) / tiles;
  splits = std::min<int64_t>(splits, std::max<int64_t>(1, kt / 2));  // >= 2 k-tiles per slice
  splits = std::min<int64_t>(splits, kt);                           // never an empty slice
  splits = std::min<int64_t>(splits, 65535);
  return static_cast<int>(std::max<int64_t>(splits, 1));
}

template <typename Kern>
cudaError_t set_smem(Kern kern, int bytes) {
  return bytes > 48 * 1024 ? cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)
                           : cudaSuccess;
}

template <Act ACT, int KB, int MT>
cudaError_t launch_dense(const LinearArgs& a, SplitK sk, bool vec_words) {
  using T = typename ActTraits<ACT>::T;
  constexpr int bytes = MmaSmem<MT, KB>::total;
  auto kern = mma_kernel<ACT, KB, MT>;
  if (cudaError_t e = set_smem(kern, bytes); e != cudaSuccess) return e;
  const dim3 grid(static_cast<unsigned>((a.w.N + kTN - 1) / kTN), static_cast<unsigned>((a.M + 16 * MT - 1) / (16 * MT)),
                  sk.splits);
  kern<<<grid, kMmaThreads, bytes, a.stream>>>(static_cast<const T*>(a.A), static_cast<T*>(a.C), a.M, a.w, sk,
                                               vec_words);
  return cudaGetLastError();
}

template <Act ACT, int KB>
cudaError_t launch_dense_m(const LinearArgs& a, SplitK sk, bool vec_words) {
  switch (mt_for_rows(a.M)) {
    case 1: return launch_dense<ACT, KB, 1>(a, sk, vec_words);
    case 2: return launch_dense<ACT, KB, 2>(a, sk, vec_words);
    default: return launch_dense<ACT, KB, 4>(a, sk, vec_words);
  }
}

template <Act ACT>
cudaError_t launch_dense_k(const LinearArgs& a, SplitK sk, bool vec_words) {
  return with_bits(a.w.bits, cudaErrorInvalidValue,
                   [&](auto kb) { return launch_dense_m<ACT, decltype(kb)::value>(a, sk, vec_words); });
}

template <Act ACT, int KB, int MT>
cudaError_t launch_grouped(const MoeArgs& a) {
  using T = typename ActTraits<ACT>::T;
  constexpr int bytes = MmaSmem<MT, KB>::total;
  auto kern = grouped_mma_kernel<ACT, KB, MT>;
  if (cudaError_t e = set_smem(kern, bytes); e != cudaSuccess) return e;
  const int64_t items = moe_max_items(a.w.E, a.total_rows, 16 * MT);
  if (items == 0) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>(items), static_cast<unsigned>((a.w.N + kTN - 1) / kTN));
  kern<<<grid, kMmaThreads, bytes, a.stream>>>(static_cast<const T*>(a.A), static_cast<T*>(a.C), a.expert_offsets,
                                               a.w);
  return cudaGetLastError();
}

template <Act ACT, int KB>
cudaError_t launch_grouped_m(const MoeArgs& a) {
  // Tile height from the expected rows per active expert.
  int64_t rows = a.max_rows_per_expert_hint;
  if (rows <= 0) rows = a.total_rows;
  switch (mt_for_rows(rows)) {
    case 1: return launch_grouped<ACT, KB, 1>(a);
    case 2: return launch_grouped<ACT, KB, 2>(a);
    default: return launch_grouped<ACT, KB, 4>(a);
  }
}

template <Act ACT>
cudaError_t launch_grouped_k(const MoeArgs& a) {
  return with_bits(a.w.bits, cudaErrorInvalidValue,
                   [&](auto kb) { return launch_grouped_m<ACT, decltype(kb)::value>(a); });
}

}  // namespace

size_t mma_workspace_bytes(int64_t M, const TiledView& w) {
  const int splits = mma_splits(M, w);
  if (splits == 1) return 0;
  const int MT = mt_for_rows(M);
  const int64_t tiles = ((w.N + kTN - 1) / kTN) * ((M + 16 * MT - 1) / (16 * MT));
  return splitk_counter_bytes(tiles) + static_cast<size_t>(splits) * M * w.N * sizeof(float);
}

cudaError_t launch_mma(const LinearArgs& a) {
  SplitK sk;
  sk.splits = mma_splits(a.M, a.w);
  if (sk.splits > 1) {
    const int MT = mt_for_rows(a.M);
    const int64_t tiles = ((a.w.N + kTN - 1) / kTN) * ((a.M + 16 * MT - 1) / (16 * MT));
    sk.counters = static_cast<uint32_t*>(a.workspace);
    sk.partials = reinterpret_cast<float*>(static_cast<char*>(a.workspace) + splitk_counter_bytes(tiles));
  }
  const bool vec_words = (a.w.N * a.w.bits) % 2 == 0 && (reinterpret_cast<uintptr_t>(a.w.packed) % 16) == 0;
  return a.act == Act::f16 ? launch_dense_k<Act::f16>(a, sk, vec_words) : launch_dense_k<Act::bf16>(a, sk, vec_words);
}

cudaError_t launch_grouped_mma(const MoeArgs& a) {
  return a.act == Act::f16 ? launch_grouped_k<Act::f16>(a) : launch_grouped_k<Act::bf16>(a);
}

}  // namespace kbit::gpu::detail
