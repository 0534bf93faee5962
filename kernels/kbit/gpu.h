// The kbit GPU API: GEMM/GEMV on tiled kbit weights (FORMAT §5-§6), for embedding in an
// inference engine. Every call is stream-ordered and asynchronous, allocates nothing, does no
// host synchronisation and so can be captured into a CUDA graph. Scratch memory comes from the
// caller (query the size first). Preconditions are checked on the host before any launch; a
// violated one returns a Status naming it (and status_message() says which argument and why).
//
//   C[m, n] = sum_k A[m, k] * W'[n, k]      A [M, K], C [M, N] row-major, fp16 or bf16,
//                                           W' the dequantized weight, fp32 accumulation.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "kbit/tiled.h"

typedef struct cublasContext* cublasHandle_t;

namespace kbit::gpu {

enum class Status : int {
  ok = 0,
  bad_bits,              // k not in 2..5
  bad_shape,             // N < 1, K < 32, K % 32 != 0, M < 0, E < 1, ...
  null_pointer,          // a required pointer is null
  misaligned,            // A/C not 16-byte aligned, or packed not 16-byte aligned
  bad_dtype,             // activations must be F16 or BF16 (dequantize also allows F32)
  bad_kernel,            // the requested kernel cannot run this case (see status_message)
  workspace_too_small,   // workspace_bytes < the size the *_workspace_bytes query returned
  no_cublas_handle,      // the dequant+cuBLAS kernel needs a cublasHandle_t
  cuda_error,            // a launch or cuBLAS call failed
};

const char* status_name(Status s);
// The last failing call's detailed message on this host thread (names argument, value, rule).
const char* status_message();

enum class Act { f16, bf16 };  // activation/output dtype

// Dense kernels. `automatic` lets dispatch pick by (N, K, M, k).
enum class Kernel : int {
  automatic = 0,
  v0,               // plain readable kernel: one warp per (m, n), a second oracle; any M
  gemv,             // scalar GEMV, M = 1..4
  mma,              // tensor-core fused-dequant GEMM (mma.sync m16n8k16), any M, split-K
  dequant_cublas,   // dequantize into workspace, then cublasGemmEx
  tcv,              // tensor-core GEMV, M = 1..16: weights decoded in registers into mma fragments
  tcw,              // tensor-core GEMM on wgmma (sm_90a build, sm_90 GPU), any M: tcv's decode feeds
                    // asynchronous wgmma; activations permuted into the workspace first
};
const char* kernel_name(Kernel k);
// Whether Kernel::tcw runs here (an sm_90a build on an sm_90 device); linear() refuses it otherwise.
bool tcw_supported();

// MoE kernels: all experts of one projection in one launch.
enum class MoeKernel : int {
  automatic = 0,
  v0,               // plain readable grouped kernel, any tokens per expert
  grouped_gemv,     // scalar grouped GEMV (fast for <= 4 tokens per expert; correct for any)
  grouped_mma,      // grouped tensor-core kernel
  grouped_tcv,      // grouped tensor-core GEMV (register decode; fast for <= 16 rows per expert, correct for any)
  grouped_tcw,      // grouped wgmma GEMM (sm_90a; needs a workspace; for prefill sizes, correct for any)
};
const char* moe_kernel_name(MoeKernel k);

struct LinearArgs {
  const void* A = nullptr;     // [M, K], dtype `act`
  void* C = nullptr;           // [M, N], dtype `act`
  int64_t M = 0;
  Act act = Act::f16;
  TiledView w;                 // device pointers; w.E must be 1
  Kernel kernel = Kernel::automatic;
  void* workspace = nullptr;   // device memory, linear_workspace_bytes() bytes, 16-byte aligned
  size_t workspace_bytes = 0;
  cublasHandle_t cublas = nullptr;  // needed only by dequant_cublas (its stream is set per call)
  cudaStream_t stream = nullptr;
  // Programmatic dependent launch (sm_90 kernels on an sm_90+ GPU; ignored elsewhere, including
  // builds JIT-compiled from older PTX). Set it only when the work queued
  // before this call on `stream` does not write w's memory (packed words, absmax, codebook): the
  // gemv, tcv and tcw launches may then start while that work drains, stage the
  // codebook and issue their first weight loads (most plans; docs/kernels.md), and wait for it
  // before they read A or touch C or the workspace. Each also lets the next launch in the stream
  // start early. With the same kernel and plan the results are those of the plain launch bit for
  // bit; automatic's PDL choices and gemv's PDL plans (unsplit at M = 1 on K <= 512) may sum in
  // another order, within every kernel's tolerance. mma and dequant_cublas ignore the flag (so
  // automatic's choice of dequant_cublas launches plainly). Until 2026-11-27 tcw ignored the flag above
  // M = 64; it now takes it at every M, so the promise above must hold there too. Off by default.
  bool pdl = false;
};

// Workspace for `kernel` (automatic: enough for whatever dispatch chooses, with or without a cuBLAS
// handle) at this M and weight. The split-K kernels gemv, tcv and mma keep a few counters in it: zero the
// workspace once after allocating it (cudaMemset); every call leaves the counters at zero again (tcw
// keeps its permuted activations and fp32 partials there and needs no zeroing). One workspace must not
// be used by two calls running concurrently on different streams.
size_t linear_workspace_bytes(int64_t M, const TiledView& w, Act act, Kernel kernel = Kernel::automatic);
Status linear(const LinearArgs& args);
// What dispatch picks for this case (the kernel `automatic` runs; dequant_cublas only when a
// cuBLAS handle is given).
// `pdl`: the choice for a call with LinearArgs::pdl, where the launch overlap changes which kernel
// is fastest on some shapes (the same as without it where the device or build has no PDL).
Kernel choose_kernel(int64_t M, const TiledView& w, Act act, bool have_cublas = true, bool pdl = false);
// How many times `kernel` (not automatic: pass choose_kernel's answer) rounds W' to the activation
// dtype at this M: 1 (W' = rn(cb * scale)), or 2 for the pair-table decodes with w.half_cb
// (rn(rn(cb) * scale)): at k = 4 tcw always and tcv from 32 M weights (N * K), at k = 3 tcv from
// 32 M weights at M <= 4, at k = 2 tcv at M <= 4. kbit-verify derives its tolerance from it.
int weight_roundings(Kernel kernel, const TiledView& w, int64_t M);

struct MoeArgs {
  const void* A = nullptr;              // [total_rows, K], rows sorted by expert
  void* C = nullptr;                    // [total_rows, N]
  const int32_t* expert_offsets = nullptr;  // DEVICE, E + 1 entries: 0 = o_0 <= ... <= o_E = total_rows
  int64_t total_rows = 0;               // host-known bound of the routed rows (= o_E)
  Act act = Act::f16;
  TiledView w;                          // fused experts [E, N, K] (device pointers)
  MoeKernel kernel = MoeKernel::automatic;
  int max_rows_per_expert_hint = 0;     // 0: unknown; dispatch uses total_rows / active experts. Sizes
                                        // grouped_gemv's and grouped_mma's work; grouped_tcv goes by the mean
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  cudaStream_t stream = nullptr;
  // Programmatic dependent launch, as LinearArgs::pdl: set it only when the work queued before
  // this call does not write w's memory. grouped_gemv and grouped_tcv then start while that work
  // drains and wait for it before they read expert_offsets, A or C; grouped_mma, grouped_tcw and v0
  // ignore it.
  bool pdl = false;
};
// Workspace bytes moe_linear needs for this case: 0 except for grouped_tcw (automatic: for the
// kernel choose_moe_kernel picks; with less, automatic picks a kernel that needs none).
size_t moe_linear_workspace_bytes(int64_t total_rows, const TiledView& w, Act act,
                                  MoeKernel kernel = MoeKernel::automatic);
Status moe_linear(const MoeArgs& args);
MoeKernel choose_moe_kernel(int64_t total_rows, const TiledView& w, Act act, int max_rows_hint);
// weight_roundings for the grouped kernels, for a call of total_rows routed rows and this
// MoeArgs::max_rows_per_expert_hint: 2 for the pair tables (w.half_cb) of grouped_tcw (k = 4) and
// grouped_tcv (k = 3 and 4; k = 2 up to 4 mean rows per active expert, whatever the hint; with
// KBIT_GTCV_NT_HINT=1 in the environment the hint, or where it is <= 0 the mean).
int moe_weight_roundings(MoeKernel kernel, const TiledView& w, int64_t total_rows, int max_rows_hint);

// Dequantize all experts of w into out ([E, N, K] row-major) of dtype f16, bf16 (Act) or fp32.
enum class OutType { f16, bf16, f32 };
Status dequantize(const TiledView& w, void* out, OutType type, cudaStream_t stream = nullptr,
                  bool v0 = false);

}  // namespace kbit::gpu
