// The public entry points of kbit/gpu.h: argument checks (every precondition named), dispatch,
// workspace sizing, and the dequantize + cuBLAS path.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <optional>
#include <string>

#include <cublas_v2.h>

#include "common.cuh"
#include "kbit/gemv_sched.h"
#include "kbit/moe_sched.h"
#include "launch.h"

namespace kbit::gpu {

namespace {

thread_local std::string g_message;

Status fail(Status s, std::string msg) {
  g_message = std::move(msg);
  return s;
}
Status ok() {
  g_message.clear();
  return Status::ok;
}
Status cuda_fail(cudaError_t e, const char* what) {
  return fail(Status::cuda_error, std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
bool aligned(const void* p, size_t a) { return reinterpret_cast<uintptr_t>(p) % a == 0; }
std::string shape_str(const TiledView& w) {
  return "[E=" + std::to_string(w.E) + ", N=" + std::to_string(w.N) + ", K=" + std::to_string(w.K) + "]";
}

// Checks shared by every entry point on the weight view.
Status check_weights(const TiledView& w, bool dense) {
  if (!valid_bits(w.bits)) return fail(Status::bad_bits, "w.bits = " + std::to_string(w.bits) + ": k must be 2..5");
  if (w.N < 1 || w.K < kBlockSize || w.K % kBlockSize != 0 || w.E < 1)
    return fail(Status::bad_shape, "weight shape " + shape_str(w) + ": need E >= 1, N >= 1, K >= 32 and K % 32 == 0");
  if (dense && w.E != 1)
    return fail(Status::bad_shape, "weight shape " + shape_str(w) + ": linear() takes one matrix (E == 1); use moe_linear()");
  if (w.N > 65535LL * 64)
    return fail(Status::bad_shape, "weight shape " + shape_str(w) + ": N above 4194240 is not supported");
  // cuBLAS takes K as an int, and tcv's lean step loops count K / 128 steps in 32 bits.
  if (w.K > INT32_MAX)
    return fail(Status::bad_shape, "weight shape " + shape_str(w) + ": K above 2147483647 is not supported");
  if (!w.packed || !w.absmax || !w.codebook) return fail(Status::null_pointer, "w.packed, w.absmax and w.codebook must be device pointers");
  if (!aligned(w.packed, 16)) return fail(Status::misaligned, "w.packed must be 16-byte aligned");
  if (!aligned(w.absmax, 4)) return fail(Status::misaligned, "w.absmax must be 4-byte aligned");
  return Status::ok;
}

Status check_act(const void* A, void* C, int64_t rows, const char* rows_name) {
  if (rows < 0) return fail(Status::bad_shape, std::string(rows_name) + " = " + std::to_string(rows) + " must be >= 0");
  if (rows > 0 && (!A || !C)) return fail(Status::null_pointer, "A and C must be device pointers");
  if (!aligned(A, 16)) return fail(Status::misaligned, "A must be 16-byte aligned (rows are read as 16-byte vectors)");
  if (!aligned(C, 2)) return fail(Status::misaligned, "C must be 2-byte aligned");
  return Status::ok;
}

bool have_workspace(size_t need, void* ws, size_t bytes) { return need == 0 || (ws && bytes >= need); }

Status run_dequant_cublas(const LinearArgs& a) {
  if (!a.cublas) return fail(Status::no_cublas_handle, "kernel dequant_cublas needs LinearArgs::cublas");
  if (!detail::dequant_fits(a.w))
    return fail(Status::bad_shape, "kernel dequant_cublas takes K up to " + std::to_string(detail::kDequantMaxKTiles * kTileK) +
                                       " (its dequantize grid), got K = " + std::to_string(a.w.K));
  const OutType t = a.act == Act::f16 ? OutType::f16 : OutType::bf16;
  if (cudaError_t e = detail::launch_dequant(a.w, a.workspace, t, a.stream); e != cudaSuccess)
    return cuda_fail(e, "dequantize launch");
  if (cublasSetStream(a.cublas, a.stream) != CUBLAS_STATUS_SUCCESS)
    return fail(Status::cuda_error, "cublasSetStream failed");
  // fp32 accumulation all the way (FORMAT §6): cuBLAS may otherwise reduce split-K partials in
  // the fp16/bf16 output type. The caller's math mode is restored afterwards.
  cublasMath_t mode = CUBLAS_DEFAULT_MATH;
  if (cublasGetMathMode(a.cublas, &mode) != CUBLAS_STATUS_SUCCESS ||
      cublasSetMathMode(a.cublas, static_cast<cublasMath_t>(mode | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)) !=
          CUBLAS_STATUS_SUCCESS)
    return fail(Status::cuda_error, "cublasGetMathMode/cublasSetMathMode failed");
  const float alpha = 1.0f, beta = 0.0f;
  const cudaDataType dt = a.act == Act::f16 ? CUDA_R_16F : CUDA_R_16BF;
  // Row-major C[M,N] = A[M,K] W'[N,K]^T is column-major C^T[N,M] = W'^T... as cuBLAS sees it:
  // op(W') = W' viewed K x N column-major, transposed; A viewed K x M column-major.
  const cublasStatus_t st = cublasGemmEx(a.cublas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(a.w.N),
                                         static_cast<int>(a.M), static_cast<int>(a.w.K), &alpha, a.workspace, dt,
                                         static_cast<int>(a.w.K), a.A, dt, static_cast<int>(a.w.K), &beta, a.C, dt,
                                         static_cast<int>(a.w.N), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  cublasSetMathMode(a.cublas, mode);
  if (st != CUBLAS_STATUS_SUCCESS)
    return fail(Status::cuda_error, std::string("cublasGemmEx failed: ") + cublasGetStatusName(st));
  return ok();
}

}  // namespace

namespace detail {
namespace {
// query(dev) for the current device, asked once per device and per query type (`fallback` when
// there is no device). Values must be >= -1.
template <class Query>
int cached_per_device(int fallback, Query query) {
  static int cached[64] = {};  // value + 1; 0: not asked yet
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return fallback;
  if (cached[dev] == 0) cached[dev] = query(dev) + 1;
  return cached[dev] - 1;
}
// Attribute `attr` of the current device (`fallback` when there is none or the query fails).
template <cudaDeviceAttr attr>
int cached_device_attribute(int fallback) {
  return cached_per_device(fallback, [fallback](int dev) {
    int v = 0;
    return cudaDeviceGetAttribute(&v, attr, dev) == cudaSuccess ? v : fallback;
  });
}
std::atomic<bool> g_clusters_off{false};  // force_no_clusters (tests)
// A kernel of this library's build. The PTX version it was compiled from says whether the kernels
// that run contain the griddepcontrol instructions: pdl_wait() compiles to nothing below sm_90, so a
// build for older architectures JIT-compiled on an sm_90 GPU must not launch with the PDL attribute.
__global__ void pdl_probe_kernel() {}
}  // namespace

int device_sm_count() {
  const int n = cached_device_attribute<cudaDevAttrMultiProcessorCount>(132);
  return n > 0 ? n : 132;
}
double device_peak_dram_gbps() {
  return peak_dram_gbps(cached_device_attribute<cudaDevAttrMemoryClockRate>(0),
                        cached_device_attribute<cudaDevAttrGlobalMemoryBusWidth>(0));
}
bool device_has_clusters() {
  return !g_clusters_off.load(std::memory_order_relaxed) && cached_device_attribute<cudaDevAttrClusterLaunch>(0) != 0;
}
bool device_has_pdl() {
  return cached_per_device(0, [](int) {
           if (cached_device_attribute<cudaDevAttrComputeCapabilityMajor>(0) < 9) return 0;
           cudaFuncAttributes fa{};
           const bool built = cudaFuncGetAttributes(&fa, pdl_probe_kernel) == cudaSuccess && fa.ptxVersion >= 90;
           cudaGetLastError();  // a failed query is not the caller's error
           return built ? 1 : 0;
         }) != 0;
}
void force_no_clusters(bool off) { g_clusters_off.store(off, std::memory_order_relaxed); }
bool tcw_short_rows_pdl() {
  static const bool on = env_knob("KBIT_TCW_SHORT_PDL", true);
  return on;
}
bool tcw_small_pdl() {
  static const bool on = env_knob("KBIT_TCW_SMALL_PDL", true);
  return on;
}
bool tcw_mid_plain() {
  static const bool on = env_knob("KBIT_TCW_MID_PLAIN", false);
  return on;
}
}  // namespace detail

const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::bad_bits: return "bad_bits";
    case Status::bad_shape: return "bad_shape";
    case Status::null_pointer: return "null_pointer";
    case Status::misaligned: return "misaligned";
    case Status::bad_dtype: return "bad_dtype";
    case Status::bad_kernel: return "bad_kernel";
    case Status::workspace_too_small: return "workspace_too_small";
    case Status::no_cublas_handle: return "no_cublas_handle";
    case Status::cuda_error: return "cuda_error";
  }
  return "unknown";
}
const char* status_message() { return g_message.c_str(); }
bool tcw_supported() { return detail::tcw_available(); }
int weight_roundings(Kernel kernel, const TiledView& w, int64_t M) {
  if (kernel == Kernel::tcv) return detail::tcv_uses_pairs(w, false, M) ? 2 : 1;
  return kernel == Kernel::tcw && detail::tcw_uses_pairs(w) ? 2 : 1;
}
int moe_weight_roundings(MoeKernel kernel, const TiledView& w, int64_t total_rows, int max_rows_hint) {
  if (kernel == MoeKernel::grouped_tcv)
    return detail::tcv_uses_pairs(w, true, detail::grouped_tcv_rows(w.E, total_rows, max_rows_hint)) ? 2 : 1;
  if (kernel == MoeKernel::grouped_tcw) return detail::tcw_uses_pairs(w) ? 2 : 1;
  return 1;
}

const char* kernel_name(Kernel k) {
  switch (k) {
    case Kernel::automatic: return "auto";
    case Kernel::v0: return "v0";
    case Kernel::gemv: return "gemv";
    case Kernel::mma: return "mma";
    case Kernel::dequant_cublas: return "dequant_cublas";
    case Kernel::tcv: return "tcv";
    case Kernel::tcw: return "tcw";
  }
  return "unknown";
}
const char* moe_kernel_name(MoeKernel k) {
  switch (k) {
    case MoeKernel::automatic: return "auto";
    case MoeKernel::v0: return "v0";
    case MoeKernel::grouped_gemv: return "grouped_gemv";
    case MoeKernel::grouped_mma: return "grouped_mma";
    case MoeKernel::grouped_tcv: return "grouped_tcv";
    case MoeKernel::grouped_tcw: return "grouped_tcw";
  }
  return "unknown";
}

// Dispatch (first version; the performance issue tunes it from kbit-bench measurements).
Kernel choose_kernel(int64_t M, const TiledView& w, Act act, bool have_cublas, bool pdl) {
  // With LinearArgs::pdl (bench/results/2026-11-25-h100-pdl7: gemv_pdl / tcv_pdl / tcw_pdl rows of
  // Qwen3, GLM and Llama-3-8B at M = 1..16, k = 4) three choices change:
  // - short rows (K <= 512) of narrow weights go to gemv up to M = 4: Qwen3 shared_expert.down
  //   2.45 / 2.85 / 2.96 us at M = 1 / 2 / 4 against tcv's 3.37-3.39 (cuBLAS fp16 3.7); since tcv's
  //   early launches (below) at M = 1 only (k = 3 too since the dispatch audit below), and on the H200 at M = 2,
  //   k >= 3 again (gemv_short_narrow_fast);
  // - rows of K >= 4096 below 8 M weights go to tcv up to M = 16: Llama-3-8B k_proj M = 1 / 2 / 16
  //   4.58 / 4.59 / 6.28 us against gemv's 5.12 / 6.09 and tcw's 6.79 (-pdl8);
  // - tcw takes M = 2..8 on 8 M .. 100 M weights with rows of K >= 4096 where tcv's plan is not a
  //   latency plan: its three launches overlap (permute, GEMM, reduction). GLM o_proj M = 4 / 8 8.07 /
  //   8.13 us against tcv's 9.69 / 10.23, Llama-3-8B q_proj M = 2 9.12 against gemv's 10.14, Llama-3-8B
  //   down M = 4 21.07 against 22.64, Llama-3-70B q_proj (67 M) M = 4 23.04 against 24.75 (-pdl8);
  //   Llama-3-8B gate_up (117 M) stays on tcv (33.8 against 39.7 us at M = 2).
  //   At M = 2 tcw keeps only weights below 32 M since gemv's k = 4 pair table (2026-11-26,
  //   bench/results/2026-11-26-h100-gemvstreamk, pdl-*.json, PDL on both sides): gemv_pdl 18.7 vs
  //   tcw_pdl 20.9 us on Llama-3-8B down (58.7 M), 20.5 vs 22.9 on Llama-3-70B q_proj (67 M); 10.6 vs
  //   10.6 on GLM shared_experts.down (21 M), 9.3 vs 9.1 on Llama-3-8B q_proj (16.8 M). k = 4 only:
  //   the other widths were not measured (found by a read-only review).
  //   The record of 2026-11-26 (bench/results/2026-11-26-h100-record-s16, gemv_pdl and tcv_pdl rows
  //   beside automatic_pdl, k = 2..5) measured the other widths and gemv's later gains (split-K
  //   atomic, activation prefetch): at M = 2 gemv_pdl beat tcw on every shape the rule gave it, at
  //   every width (1.05-1.37x: Qwen3 dense.down 6.79 vs 7.97 us at k = 4, Llama-3-70B q_proj 16.5 vs
  //   22.6 at k = 2), so tcw starts at M = 3. At M = 4 the other widths are mixed: tcv_pdl beats tcw
  //   on Qwen3 o_proj (8.4 M), Llama-3-8B down and Llama-3-70B q_proj at k = 2, 3, 5 (1.08-1.26x) but
  //   loses on the 10.5 M shapes (Qwen3 dense.down 8.62 vs 8.14 us at k = 3): not ruled then (Qwen3
  //   o_proj's cluster grid and the 10.5 M early grids have rules of their own below since).
  // gemv's early PDL launches (2026-11-26, bench/results/2026-11-26-h100-gemvearly/land, gemv_pdl
  // beside automatic_pdl in the same run) moved three more at M <= 2:
  // - rows of K >= 4096 below 8 M weights go to tcv from M = 3 only: Llama-3-8B k/v_proj gemv_pdl
  //   3.20-3.65 us at M = 1 against tcv's 3.96-4.81 (1.25-1.32x), 1.07-1.16x at M = 2;
  // - short rows (K <= 512) of wide weights at M = 1 go to gemv: GLM kv_b_proj 3.79 / 3.87 / 3.97 us
  //   against tcv's 3.90 / 4.35 / 4.64 at k = 3 / 4 / 5; with gemv_pdl_plan's unsplit grid
  //   (bench/results/2026-11-26-h100-gemvrules, same run) 2.34 / 2.75 / 2.78 / 3.07 us at k = 2..5
  //   against tcv's 3.11 at k = 2;
  // - gemv_wide below: at M = 1, k >= 3 gemv takes the one-pass shapes from 8 M weights: Qwen3
  //   q_proj (8.4 M) 3.92 / 4.30 / 4.69 us against tcv's 4.50 / 4.49 / 5.18; GLM q_b_proj (3.9 M)
  //   stays on tcv (3.31 vs 3.68 at k = 4).
  const double weights = static_cast<double>(w.N) * static_cast<double>(w.K);
  const bool pdl_live = pdl && detail::device_has_pdl();  // only where the launches really overlap
  // tcv's plan on this GPU, built once, when a rule first asks it.
  std::optional<TcvPlan> tcv_plan_cache;
  auto tcv_plan_once = [&]() -> const TcvPlan& {
    if (!tcv_plan_cache) tcv_plan_cache = detail::tcv_plan_of(M, w, act);
    return *tcv_plan_cache;
  };
  // tcv's early PDL launches (2026-11-26, bench/results/2026-11-26-h100-tcvearly/land: gemv_pdl,
  // tcv_pdl and tcw_pdl beside automatic_pdl in the same run, k = 2 / 4; tcv_early_launch) took back
  // two kinds of shape:
  // - short narrow rows from M = 2: Qwen3 shared_expert.down 2.27 / 2.48 us at M = 2 against gemv's
  //   2.38 / 2.58, 2.31 / 2.50 at M = 4 against 2.68 / 2.86 (k = 2 / 4; tcw 4.7-5.1 throughout); in
  //   the final call (-tcvearly/final) 2.42 against 2.63 at k = 5, but 2.62 against 2.54 at k = 3,
  //   which starts at M = 3 (2.67 against 2.93 at M = 4);
  // - the early split grids of rows of K >= 4096 at M = 3, 4, and up to M = 16 where they have at
  //   most 5 slices, ahead of tcw: Qwen3 dense.down and GLM o_proj (2048 x 5120, 5 slices) 5.54 /
  //   5.94 / 7.44 us at M = 4 / 8 / 16, k = 2, against tcw's 7.15 / 7.31 / 8.91, and 6.87 / 7.55 /
  //   8.67 against 7.55 / 7.66 / 9.26 at k = 4; Llama-3-70B k/v_proj (1024 x 8192, 8 slices) 5.42 /
  //   6.63 against 6.28 / 6.67 at M = 4, but 7.30 against 6.76 at M = 8, k = 4 and 7.26 / 8.57
  //   against 6.52 / 6.92 at M = 16. M = 2 stays with gemv (dense.down 5.16 / 6.26 against tcv's
  //   5.17 / 6.71).
  // The dispatch audit after tcv's per-kernel step loops (2026-11-27, bench/results/2026-11-27-h100-
  // daudit: gemv_pdl, tcv_pdl, tcw_pdl beside automatic_pdl in one run, Qwen3-Coder-Next and
  // GLM-4.7-Flash, M = 1..16, k = 2..5; then old and new rules in one call with all four catalogue
  // models, bench/results/2026-11-27-h100-daudit/land and /final) moved three kinds of shape to tcv:
  // - short narrow rows at k = 3 from M = 2, as the other widths: Qwen3 shared_expert.down 2.10 us
  //   against gemv's 2.56 (tcv's one-tile k = 3 early kernel gained 1.115x from its lean step loop);
  // - M = 2 where tcv has its pair table and gemv has none (gemv's k = 2 table serves M = 1 only, its
  //   k = 3 one does not exist): k = 2 from 16 M weights, 1.05-1.23x on all 10 such catalogue shapes
  //   (Llama-3-70B q_proj 16.16 -> 13.19 us, GLM shared_experts.gate_up 11.63 -> 9.44; Qwen3 o_proj,
  //   8.4 M, stays on gemv: 4.34 against tcv's 4.92), and k = 3 on its table (from 32 M weights,
  //   tcv_uses_pairs): tcv_pdl 1.05-1.17x against gemv_pdl on all 7 such shapes (Llama-3-70B down
  //   57.0 against 51.8 us; at 17-21 M without the table gemv keeps them, 0.88-0.92x);
  // - M = 1, k = 2 from 16 M weights on rows of K <= 2048: GLM shared_experts.gate_up (42 M) 10.31
  //   -> 9.10 us. The longer rows stay on gemv: Llama-3-8B gate_up (K = 4096, 117 M) 22.3
  //   against tcv's 24.6, Llama-3-70B q/o_proj, down and gate_up 0.975-0.997x.
  if (pdl_live) {
    if (M == 1 && w.K <= 512 && detail::gemv_fits(w)) return Kernel::gemv;
    // The leads of that audit, measured at every M = 9..16 (bench/results/2026-11-28-h100-leads-s39: gemv_pdl,
    // tcv_pdl, tcw_pdl beside automatic_pdl in one run, Llama-3-8B and Llama-3-70B, k = 2, 3, 5): tcw overtakes
    // tcv on Llama-3-8B's attention rows at M = 15, 16 at k = 2 and at M = 16 at k = 3 -- k_proj 5.19 / 5.41 us
    // against tcw's 4.84 / 4.91 at M = 15 / 16, k = 2 (1.03-1.04x at M = 12..14), 5.44 against 5.20 at
    // M = 16, k = 3; q_proj (its 2-slice early grid below) 10.30 / 10.56 against 9.90 / 9.91 at k = 2, 10.99
    // against 10.61 at M = 16, k = 3 (1.01x at M = 15) -- and not at k = 5 (tcv 6.88 against 7.32 at M = 16).
    const bool tcw_m16 = (w.bits == 2 && M >= 15) || (w.bits == 3 && M == 16);
    if (M >= 3 && M <= 16 && w.K >= 4096 && weights < 8.0e6)
      return tcw_m16 && tcw_supported() ? Kernel::tcw : Kernel::tcv;
    if (M >= 2 && M <= 16 && w.K <= 512 && w.N <= 2048) {
      // On the H200 gemv keeps M = 2 at k >= 3 (gemv_short_narrow_fast, lib/kbit/gemv_sched.h).
      if (gemv_short_narrow_fast(M, w.bits, true, detail::device_peak_dram_gbps()) && detail::gemv_fits(w))
        return Kernel::gemv;
      return Kernel::tcv;
    }
    // The audit of 2026-11-28 (bench/results/2026-11-28-h100-audit-s38: gemv_pdl, tcv_pdl, tcw_pdl beside
    // automatic_pdl in one run, all four catalogue models, M = 2..16, k = 2..5) had tcv ahead of gemv at M = 2,
    // k = 4 on rows of N = 8192 with K >= 8192 (on tcv's pair table, from 32 M weights): Llama-3-70B q/o_proj
    // 18.08-18.14 us against 19.66-19.67, down 55.91 against 60.55. Elsewhere it lost or tied: Llama-3-70B gate_up
    // (N = 57344) 116.55 against 110.68, Llama-3-8B gate_up (28672) 33.72 against 33.39, Llama-3-8B down (4096 x
    // 14336) 17.71 against 17.60; GLM shared_experts.gate_up (20480 x 2048) gained 1.047x (13.48 against 14.11)
    // and stays on gemv. The bounds N = 8192..16383 and K >= 8192 hold the winners of > 5% only.
    // (At k = 3 from 32 M weights: the dense table starts at 8 M since the forty-seventh session, kTcvPairs3MinWeights,
    // but below 32 M gemv stayed ahead at M = 2: Llama-3-70B k_proj, 8.4 M, 4.72 us against tcv's 5.46 on the table,
    // Qwen3 dense.down 5.42 against 5.62; bench/results/2026-11-28-h200-s47p.)
    const bool pairs_m2 = M == 2 && ((w.bits == 3 && weights >= detail::kTcvPairsMinWeights) ||
                                     (w.bits == 2 && weights >= 16.0e6) ||
                                     (w.bits == 4 && w.N >= 8192 && w.N < 16384 && w.K >= 8192));
    // gemv's activation-sum tables at M = 1, k = 2 (gemv_lut_enabled; bench/results/2026-11-28-h200-lut) take the
    // rows of this rule back: GLM shared_experts.gate_up 7.08 us against tcv's 9.33, Qwen3 dense.gate_up 4.51
    // against 5.42 (gemv_pdl against automatic_pdl, same call).
    const bool pairs_m1 = M == 1 && w.bits == 2 && weights >= 16.0e6 && w.K <= 2048 && !detail::gemv_lut_enabled();
    if ((pairs_m1 || pairs_m2) && detail::tcv_uses_pairs(w, false, M)) return Kernel::tcv;
    if (M >= 3 && M <= 16 && w.K >= 4096) {
      const TcvPlan& tp = tcv_plan_once();
      const int early = tcv_early_splits(tp);  // split grids only: no unsplit one of such rows was measured
      // At M = 5..8 the 8-slice grids of Llama-3-70B k/v_proj beat tcw at k = 2, 3, 5 as well: 5.75-5.85
      // / 6.59-6.64 / 7.14-7.60 us against 6.34-6.38 / 6.70-6.80 / 8.07-8.24, not at k = 4 on tcw's
      // pair table (7.33 against 6.78 at M = 8; bench/results/2026-11-26-h100-tcvm8).
      // Since tcv_plan cuts its workspace grids to one wave (bench/results/2026-11-27-h100-tcvwave,
      // automatic_pdl against the uncut plans), Llama-3-8B q/o_proj (768 CTAs of 3 slices) and down
      // and GLM shared_experts.down (768 of 6) are early grids too: tcv won at M = 3..8 (q_proj 8.11 ->
      // 6.45 us at M = 4, k = 2; down 20.73 -> 18.77 at k = 4), but on tcw's pair table lost where the
      // warps run many steps (Llama-3-8B down at M = 8, 9-10 steps per warp: 22.48 against 21.65).
      // At M = 9..16, at every width, only grids of at most 5 slices and 2 steps per warp: GLM
      // shared_experts.down at M = 16 (5 slices, 4 steps per warp) lost at k = 4, 5 (14.00 against
      // 11.55 us, 0.958x) and gained only 1.03-1.04x at k = 2, 3; Qwen3 dense.down's 2 steps won
      // (8.67 against 9.26 at k = 4 in -tcvearly/final).
      // The second audit (bench/results/2026-11-27-h100-daudit2, tcv_pdl beside tcw_pdl) had tcv ahead
      // at k = 2, 3 on GLM shared_experts.down at M = 16 with its 4 steps per warp: 10.43 / 10.92 us
      // against 11.33 / 12.16 (k = 4, 5 stay on tcw: 13.96 / 15.18 against 11.52 / 14.59).
      const int64_t warp_steps = tcv_warp_steps(tp);
      const bool pairs = detail::tcw_uses_pairs(w);
      // Since -leads-s39 (first paragraph above) the 2-slice grids (Llama-3-8B q/o_proj) go to tcw at tcw_m16, and
      // the 8-slice grids of 2 steps per warp (Llama-3-70B k/v_proj) to tcv at k = 3 up to M = 12 and at k = 2 up to
      // M = 10: k_proj tcv_pdl 6.47 / 6.39 / 6.39 / 6.50 us against tcw_pdl's 6.78 / 6.80 / 6.86 / 6.90 at M = 9..12,
      // k = 3 (1.03x at M = 13, tcw from M = 15), 6.01 / 6.11 against 6.37 / 6.35 at M = 9, 10, k = 2 (1.02x at 11).
      if (early >= 2 && (M <= 4 || (M <= 8 && (early <= 5 || !pairs) && !(pairs && warp_steps > 8)) ||
                         (early <= 5 && (warp_steps <= 2 || (w.bits <= 3 && warp_steps <= 4)) &&
                          !(early == 2 && tcw_m16)) ||
                         (early >= 6 && warp_steps <= 2 && (w.bits == 3 ? M <= 12 : w.bits == 2 && M <= 10))))
        return Kernel::tcv;
      // tcv's wide cluster grids of narrow rows (Qwen3 o_proj, 2048 x 4096: 512 CTAs in clusters of 4
      // slices) beat tcw at M = 3, 4 and 16 but where tcw has its pair table, and tie at M = 5..8
      // (M = 5, 6, 8 in -tcvm8; k = 4 without the fp16 codebook was not measured)
      // (H100, bench/results/2026-11-27-h100-moekw, automatic_pdl against tcw in the same call: 5.95 /
      // 6.41 / 7.77 -> 5.41 / 6.29 / 7.13 us at M = 3, k = 2 / 3 / 5, 5.90 / 6.34 / 7.74 -> 5.48 /
      // 6.29 / 7.13 at M = 4, 7.51 / 8.12 / 9.35 -> 7.08 / 7.16 / 8.88 at M = 16; M = 8 0.998-1.004x;
      // k = 4 on tcw, 6.28 against tcv_pdl's 6.81 at M = 4 in -tcvearly/final). M = 9..15 stay on tcw
      // at k = 2, 5: M = 12 lost (6.23 -> 6.38, 7.99 -> 8.15). At k = 3 tcv leads at every M = 9..15
      // (bench/results/2026-11-28-h100-final-s39, the Qwen3/GLM audit at the M the earlier audits skipped, one
      // rep: 6.17 / 6.26 / 6.32 / 6.58 / 6.70 / 6.85 us against tcw_pdl's 6.65 / 6.58 / 6.61 / 6.77 / 6.97 / 7.35 at
      // M = 9, 10, 11, 13, 14, 15; -audit-s38 6.30 against 6.54 at M = 12). N <= 2048: wider cluster grids
      // (Llama-3-8B q/o_proj, 4096 x 4096, where the slots allow) were not measured against tcw.
      if ((M <= 8 || M == 16 || w.bits == 3) && w.N <= 2048 && !pairs && tcv_wide_cluster(tp))
        return Kernel::tcv;
      // From 32 M weights at M = 3..8 only k = 4 on tcw's pair table (half_cb) stays on tcw, and only
      // where tcv's grid is split (the last paragraph here). At M = 5..8
      // since tcv's out-of-line fixup (bench/results/2026-11-26-h100-tcvm8, tcv_pdl beside tcw_pdl):
      // Llama-3-70B q/o_proj 19.75-20.21 / 24.33-25.14 us against 23.34-23.47 / 25.78-25.96 at k = 2 / 3,
      // Llama-3-8B down 17.61-18.23 / 21.80-21.93 against 20.57-21.14 / 22.78-23.43; at k = 5 1.00-1.05x
      // but 0.98x on Llama-3-70B q/o_proj at M = 8; tcw ahead at k = 4 (23.89 against 26.93 at M = 8).
      // At M = 3, 4 the record of
      // 2026-11-26 (bench/results/2026-11-26-h100-record-s17, tcw_pdl beside tcv_pdl) has tcv_pdl ahead
      // at k = 2, 3, 5 on Llama-3-70B q/o_proj (67 M: 18.97 vs 23.34 us at k = 2) and Llama-3-8B down
      // (58.7 M: 17.02 vs 20.38), tcw ahead at k = 4 (23.62 vs 24.25, 20.88 vs 21.85); below 32 M tcw
      // wins at every width but on Qwen3 o_proj (8.4 M, 1.07-1.09x at k = 2, 5, while Llama-3-70B
      // k/v_proj, 8.4 M too, go the other way).
      // Since tcv's workspace grids are cut to one wave, Llama-3-70B q/o_proj at M <= 16 is 512 CTAs of
      // one slice launched stage-first, and tcv_pdl beat tcw at k = 4 too (bench/results/2026-11-27-h100-
      // tcvwave/second, tcv_pdl beside automatic_pdl in the same run): 18.22 / 18.54 / 21.80 us against
      // 22.83 / 23.42 / 23.80 at M = 3 / 4 / 8 (M = 5..7 between them; not re-measured as automatic_pdl;
      // M = 16 stays on tcw, 24.24 against 30.64). Llama-3-8B down keeps tcw at k = 4 from M = 5 (its
      // 3-slice grid: 22.49 against 21.54 at M = 8).
      // At M = 9..12, k = 2, 3 too, on rows of K >= 8192 (bench/results/2026-11-28-h100-audit-s38, same run):
      // Llama-3-70B q/o_proj at M = 12 tcv_pdl 21.10-21.20 / 23.76-23.80 us against tcw_pdl's 23.53-23.61 / 26.15 at
      // k = 2 / 3, at M = 8 1.35x / 1.15x ahead, at M = 9 (-final-s38) 21.88-21.97 / 24.47-24.50 against 23.57-23.58
      // / 26.02-26.06. At k = 4, 5 tcw stays ahead from M = 12 (24.13-24.21 against 26.78-26.90 at k = 4). At M = 16
      // the two tie at k = 2 (23.86 / 23.59) and tcv leads by only 2.6% at k = 3 (25.48 / 26.16), so M = 16 stays
      // on tcw (M = 13..15 were not measured then: see -leads-s39 below). K >= 8192: Llama-3-8B mlp.gate (14336 x
      // 4096, 58.7 M, not a block shape), whose grid at M = 9..16 is one wave of unsplit CTAs too, was not measured
      // there and stays on tcw.
      // Since -leads-s39 (every M = 9..16): up to M = 15 at k = 2, 3 and at M = 9 at k = 5. q_proj tcv_pdl 21.15 /
      // 21.77 / 22.60 us against tcw_pdl's 23.63 / 23.63 / 23.57 at M = 13 / 14 / 15, k = 2; 23.29 / 23.47 / 24.25
      // against 26.12 / 26.15 / 26.12 at k = 3; at M = 16 1.00x / 1.03x. At k = 5 32.12 against 33.73 at M = 9,
      // 1.03x at M = 10, tcw ahead from M = 12.
      if ((M <= 8 || ((M <= 15 && w.bits <= 3) || (M == 9 && w.bits == 5)) && w.K >= 8192) && weights >= 32.0e6 &&
          weights < 100.0e6 && tcv_unsplit_wave(tp))
        return Kernel::tcv;
      // From 100 M weights on rows of N >= 16384 at M = 9, 10, k = 3, 5 (-leads-s39): Llama-3-8B gate_up (28672 x
      // 4096, 117 M) tcv_pdl 37.51 / 39.98 us against tcw_pdl's 43.46 / 43.45 at k = 3, 53.02 / 54.24 against 60.04 /
      // 60.27 at k = 5 (1.04-1.09x at M = 11, 12; at M = 13 1.01x / 1.03x, tcw from M = 14); Llama-3-70B gate_up
      // (57344 x 8192, 470 M) 207.2 / 213.8 against 224.0 / 224.2 at k = 5, 147.0 / 148.2 against 151.6 / 150.8 at
      // k = 3. Not k = 2 (Llama-3-70B gate_up 134.96 against 129.11 at M = 9); k = 4 was not measured. Bounded to
      // those two shapes' kinds, rows of K <= 4096 or N >= 32768: Llama-3-70B mlp.gate (28672 x 8192, 235 M, not a
      // block shape) lies between them and was not measured, so it stays on tcw.
      if (M >= 9 && M <= 10 && (w.bits == 3 || w.bits == 5) && w.N >= 16384 && weights >= 100.0e6 &&
          (w.K <= 4096 || w.N >= 32768))
        return Kernel::tcv;
      const bool tcw_big_ok = pairs || weights < 32.0e6;  // k = 4 on the pair table
      if (M <= 8 && tcw_supported() && weights >= 8.0e6 && weights < 100.0e6 && tcw_big_ok && !tcv_latency(tp))
        return Kernel::tcw;
    }
  }
  // kbit-bench on the H100 (bench/results/2026-11-23-h100-tcv): the scalar gemv wins at M = 1..2
  // except on short rows (K <= 512: tcv 4.0 vs 4.8 us on Qwen3 shared_expert.down); at M = 4 tcv
  // wins on the large shapes (Llama-3-70B gate_up 150 vs 209 us) and is within 6% on the small
  // ones, and it beats mma at M = 4..16 on every catalogue shape. M = 3 is not in the sweep; it
  // goes to tcv because gemv's cost grows by one FMA per weight and row.
  // M = 2 has no size rule of its own: tcv took it from ~50 M weights with its k = 4 pair table
  // (2026-11-25-h100-tcvpairs), gemv's leaner loop (2026-11-26-h100-gemvrecord) and its own pair
  // table took it back (2026-11-26-h100-gemvpairs/final, same run: Llama-3-70B down 59.9 vs tcv's
  // 66.0 us, Llama-3-8B gate_up 34.1 vs 34.5).
  // Where tcv runs one pass without cross-CTA split-K (short K on narrow weights,
  // bench/results/2026-11-25-h100-tcvshortk) it beats gemv at M = 1..2 from ~4 M weights (Qwen3
  // dense.gate_up 10.1 vs 11.0 us at M = 1, q_proj 6.6 vs 7.0, GLM q_b_proj, 3.9 M, 5.3 vs 5.7) but
  // not on 1-2 M (Qwen3 k_proj 5.7 vs 4.7). With the one pass at k = 2, 3, 5 as well
  // (2026-11-25-h100-cluster) the same holds there: q_proj M = 1 5.7 / 6.5 / 7.4 vs gemv 6.3 / 7.0 /
  // 7.6 us, q_b_proj 4.7 / 5.2 / 5.9 vs 5.5 / 5.8 / 6.1.
  // (Asked last: the plan behind it is the one query here that costs more than arithmetic.)
  // At M = 1 the widest one-pass shapes went back to gemv at k >= 3 after its split-K atomic and
  // activation prefetch (record of 2026-11-26, bench/results/2026-11-26-h100-record-s16): Qwen3
  // dense.gate_up (21 M weights) 7.40 / 7.73 / 9.57 us with PDL against tcv's 8.17 / 9.29 / 10.03 at
  // k = 3 / 4 / 5, and 8.35 / 9.04 / 10.55 against 8.96 / 10.03 / 10.85 without, while tcv keeps
  // k = 2 (5.95 vs 6.83 with PDL) and the 4-8 M shapes (q_proj 4.46 vs 5.12 at k = 4). The only
  // catalogue shape of the one-pass rule at >= 16 M weights.
  auto tcv_one_pass = [&] { return tcv_plan_once().short_k; };
  // At M = 2, k = 4 under PDL gemv keeps the one-pass shapes from 16 M weights too, where tcv has no
  // pair table (tcv_uses_pairs: from 32 M): Qwen3 dense.gate_up (21 M) gemv_pdl 8.71 against tcv_pdl's
  // 9.23 us (bench/results/2026-11-27-h100-daudit2; 1.07x in -daudit/audit before it).
  const bool gemv_m2 = pdl_live && M == 2 && w.bits == 4 && weights >= 16.0e6 && !detail::tcv_uses_pairs(w, false, M);
  // At k = 2 gemv's activation-sum tables keep M = 1 from 8 M weights, with PDL and without (q_proj 4.73 us against
  // tcv's 4.91 without; bench/results/2026-11-28-h200-lutland), where tcv's one pass still leads below (GLM q_b_proj,
  // 3.9 M: 2.52 against 2.96 under PDL). Under PDL from 8 M only with the balance on (gemv_balance_enabled) on the
  // H200: it evens out q_proj's early grid (8.4 M, 512 CTAs, 4 per SM), and gemv_pdl went from 3.42 us against tcv's 3.22 without it
  // (-h200-lutland: then this bound was 16 M under PDL) to 3.17-3.19 against 3.25-3.27 with it (three reps,
  // bench/results/2026-11-28-h200-checks-s43).
  // Measured on the H200 only, where the balance pads that grid (need 4 of 5 CTAs per SM on 132 SMs); on a GPU where it
  // would not (fewer SMs: need = per-SM occupancy) or not yet measured (the H100) the 16 M bound stays (fast_dram).
  const bool lut_m1 = M == 1 && w.bits == 2 && detail::gemv_lut_enabled() &&
                      (weights >= 16.0e6 ||
                       (weights >= 8.0e6 && (!pdl_live || (detail::gemv_balance_enabled() &&
                                                           fast_dram(detail::device_peak_dram_gbps())))));
  const bool gemv_wide =
      (gemv_m2 || lut_m1 || (M == 1 && w.bits >= 3 && weights >= (pdl_live ? 8.0e6 : 16.0e6))) && detail::gemv_fits(w);
  if (M <= 2 && w.K > 512 && weights >= 3.5e6 && !gemv_wide && tcv_one_pass()) return Kernel::tcv;
  // Short rows (K <= 512) go to tcv except narrow ones: after gemv's leaner step loop (2026-11-26,
  // bench/results/2026-11-26-h200-gemvlean/final, same run) gemv takes Qwen3 shared_expert.down
  // (2048 x 512) at M = 1 / 2 in 3.69 / 3.89 us against tcv's 4.08 / 4.10 (k = 4; 1.05-1.13x at
  // k = 2..5); GLM kv_b_proj (8960 x 512) stays on tcv without PDL (4.92 against 5.53 us at M = 1). At k = 2 with
  // tcv's pair table (2026-11-26, bench/results/2026-11-26-h100-gemvadj, same call) tcv takes the narrow
  // ones too: Qwen3 shared_expert.down 3.37 / 3.41 us at M = 1 / 2 against gemv's 3.66 (adjacent-pair
  // table) / 3.80.
  // On the H200 gemv keeps the narrow ones at M = 1, k = 2 without PDL (gemv_short_narrow_fast; with PDL M = 1 of
  // short rows went to gemv above).
  const bool tcv_short_rows =
      w.K <= 512 && (w.N > 2048 || (w.bits == 2 && detail::tcv_uses_pairs(w, false, M) &&
                                    !gemv_short_narrow_fast(M, w.bits, false, detail::device_peak_dram_gbps())));
  if (M <= 2) return tcv_short_rows || !detail::gemv_fits(w) ? Kernel::tcv : Kernel::gemv;
  // gemv's cluster split-K (grids of one CTA per SM) made it the faster kernel up to M = 4 on
  // narrow weights (bench/results/2026-11-25-h100-cluster, k = 2..5: Qwen3 k_proj / v_proj, GLM
  // q_a_proj / kv_a_proj at M = 4 4.6-5.0 us against tcv's cluster plan 5.1-5.7); at N = 1024
  // (Qwen3 shared_expert.gate_up) tcv wins M = 4 (5.2-5.7 vs 5.7-6.1).
  if (M <= 4 && w.N <= 768 && w.K > 512 && detail::gemv_fits(w)) return Kernel::gemv;
  // tcw's k = 4 pair table against tcv (record at 6b74702, bench/results/2026-11-25-h100-record-
  // 6b74702): at M = 4 and 8 tcw wins where tcv still decodes by offsets, 12 M .. 32 M weights
  // (Llama-3-8B q_proj 11.4 vs 13.2 us at M = 4, 11.5 vs 14.3 at 8; GLM shared_experts.down 12.9 vs
  // 16.2, 12.9 vs 17.6; 10.5 M shapes tie, smaller ones lose); from 32 M (both on the pair table) tcv
  // keeps M = 4 (Llama-3-70B gate_up 122.3 vs 135.6) and tcw takes M = 8 on rows of K >= 4096
  // (gate_up 134.0 vs 145.3, Llama-3-8B down 23.3 vs 27.5; GLM shared_experts.gate_up, K = 2048:
  // 22.8 vs 21.6). M = 3 and 5..7 are not in the sweep: they follow M = 4.
  const bool tcw_ok = tcw_supported();
  const bool tcw_pairs = tcw_ok && detail::tcw_uses_pairs(w) && w.K > 512;
  // Plain launches' rules of the forty-seventh session (tcv rather than tcw at M = 3..16 below 32 M weights, below);
  // KBIT_TCW_MID_PLAIN=1 in the environment restores the rules before, for A/B runs. Measured on the H200 only.
  const bool plain_tcv = !pdl_live && !detail::tcw_mid_plain();
  if (M <= 8) {
    // (not where tcv runs one pass: Qwen3 dense.gate_up, K = 2048, M = 4: tcv 10.2 vs tcw 13.3 us)
    // At k = 2, 3, 5 as well (2026-11-25-h100-cluster, same run: GLM shared_experts.down M = 4 tcw
    // 12.4 / 13.2 / 15.8 vs tcv 14.1 / 15.1 / 17.8 us, Llama-3-8B q_proj M = 8 10.8 / 11.5 / 13.9 vs
    // 11.7 / 12.7 / 15.1).
    // Launched plainly these rows run tcv since the forty-seventh session (`plain_tcv`, the M = 9..16 rule below):
    // H200, tcw lost on every such row but one, 1.03-1.58x (bench/results/2026-11-28-h200-s47x; old / new in -s47n:
    // 80 rows 1.208x). Under live PDL the rule stands (the PDL audits -audit-s38, -audit-s40 left it in place).
    if (tcw_ok && w.K > 512 && weights >= 12.0e6 && weights < detail::kTcvPairsMinWeights && !tcv_one_pass() &&
        !plain_tcv)
      return Kernel::tcw;
    if (tcw_pairs && M == 8 && weights >= detail::kTcvPairsMinWeights && w.K >= 4096) return Kernel::tcw;
    return Kernel::tcv;
  }
  // tcw (wgmma) against tcv, mma and dequantize + cuBLAS, kbit-bench on the H100 (bench/results/
  // 2026-11-25-h100-tcw, records at cb1aad7 and 7c958a1, all 27 block shapes): from M = 16 it beats
  // tcv on every shape with K > 512 (Llama-3-8B q_proj 13.4 vs 20.0 us, GLM q_b_proj, K = 768, 8.4
  // vs 10.6) except GLM shared_experts.gate_up (N = 20480, 42 M weights: 0.95x); up to M = 64 it
  // beats everything but short rows on narrow weights (K <= 512, N < 8192: Qwen3
  // shared_expert.down); at M = 65..128 from 4 M weights, at 129..256 from 8 M, at 257..512 on long
  // rows (K >= 5120) from 8 M or from 40 M weights; from M = 1024 dequantize + cuBLAS was faster then
  // (tcw's mbarrier stages took back 513..1024 from 40 M weights at k <= 4, below).
  // M = 9..15 share M = 16's tiles in both kernels. The M = 9..16 exclusion (N >= 16384 below 100 M
  // weights) is the narrowest bound that keeps GLM's shared_experts.gate_up (20480 x 2048) on tcv
  // and Llama-3-8B / 70B gate_up (28672 x 4096, 117 M; 57344 x 8192) on tcw; no catalogue shape
  // lies between them. With tcw's k = 4 pair table the exclusion went at k = 4 (GLM shared_experts.gate_up
  // at M = 16 23.0 vs 30.0 us, record at 6b74702), and came back with tcv's step loops (below).
  // tcv's latency plans (one pass, or a cluster grid of <= 1 CTA per SM) beat tcw at M = 16 on
  // the small Qwen3/GLM shapes (bench/results/2026-11-25-h100-cluster, k = 2..5: Qwen3 k_proj 5.8-6.6
  // vs 7.2-7.9 us, q_proj 6.8-9.0 vs 8.8-10.6, GLM q_b_proj 5.7-7.3 vs 7.7-8.6; dense.gate_up, 21 M
  // weights, ties at k = 4: 13.7 vs 13.5).
  if (M <= 16 && tcv_latency(tcv_plan_once())) return Kernel::tcv;
  // Since tcv's step loops (2026-11-27) the exclusion holds at k = 4 too, tcw's pair table or not: GLM
  // shared_experts.gate_up at M = 16 tcv_pdl 20.09 against tcw_pdl's 21.69 us (bench/results/
  // 2026-11-27-h100-daudit2).
  // Launched plainly (`plain_tcv`), tcv beats tcw at M = 9..16 below 32 M weights at k <= 3, and at k = 4, 5 below 12 M
  // up to M = 12 (k = 5 on 12-32 M to M = 10): H200, tcv and tcw launched plainly over the dense catalogue at
  // M = 10, 12, 14 (Qwen3 only), 16, k = 2..5 (bench/results/2026-11-28-h200-s47m, -s47n), then old / new (-s47q): the
  // 188 rows it moves 1.121x (0.981-1.352; Llama-3-8B qkv_proj up to 1.35x). Out of it: k = 4 from 12 M (measured
  // with tcw's pair table: Llama-3-8B q/o_proj 0.85-0.96x on tcv; without half_cb not measured, so those stay on tcw
  // too), k = 4, 5 at M = 13..16 below 12 M (Qwen3 o_proj 0.96x at M = 16, k = 5; M = 13 not measured), and from
  // 32 M (mixed, 0.64-1.17x).
  if (M <= 16 && plain_tcv && weights < detail::kTcvPairsMinWeights &&
      (w.bits <= 3 || (weights < 12.0e6 && M <= 12) || (w.bits == 5 && M <= 10)))
    return Kernel::tcv;
  if (M <= 16) return tcw_ok && w.K > 512 && (w.N < 16384 || weights >= 100.0e6) ? Kernel::tcw : Kernel::tcv;
  // Since the dequantize rewrite (2026-11-27: dequant_cublas 1.12-1.51x faster) tcw keeps less of
  // M > 16 where dequantize + cuBLAS can run (bench/results/2026-11-27-h100-ldisp, tcw_pdl against
  // dequant_cublas, all catalogue shapes at M = 32..1024, k = 2, 4, 5; then old and new bounds in one
  // call, automatic and automatic_pdl, bench/results/2026-11-27-h100-ldisp/land): up to M = 32 every
  // shape, under live PDL the short narrow rows too (Qwen3 shared_expert.down 5.18-5.43 against
  // 6.00-6.14 us; launched plainly tcw took 7.08-7.30); at 65..128 from 4 M weights on rows of K > 512
  // (GLM kv_b_proj, 4.6 M, K = 512: 9.5-9.6 against 10.3 us; Llama-3-8B k/v_proj, 4.2 M, stayed 1-2%
  // ahead on tcw) and, by the next bound, from 10 M on any rows (no catalogue shape of K <= 512 has
  // that many weights; not measured); at 129..256 from 10 M (then the 8.4 M shapes were 1.06-1.24x faster on
  // dequant_cublas: Qwen3 q_proj 22.1 -> 18.4 us at k = 4; the 10.5 M ones stayed on tcw, 1.01-1.08x ahead
  // in -ldisp); at 257..512 on rows of K >= 5120 from 16 M (then Llama-3-70B k/v_proj, 8.4 M, 1.13-1.27x and
  // Qwen3 dense.down and GLM o_proj, 10.5 M, 1.09-1.16x faster on dequant_cublas; GLM shared_experts.down,
  // 21 M, stayed on tcw, 1.00-1.08x ahead in -ldisp) or from 40 M. Since tcw's token tile choice the
  // long-row bounds are lower (below). Without a cuBLAS handle the
  // alternative is mma and the earlier bounds (bench/results/2026-11-25-h100-tcw) stay: 65..128 on
  // any rows, 8 M at 129..256 and on the long rows at 257..512.
  if (tcw_ok) {
    const bool short_narrow = w.K <= 512 && w.N < 8192;
    if (M <= 64 && !short_narrow) return Kernel::tcw;
    // Under live PDL the short narrow rows stay on tcw to M = 64 at k <= 4 since its 64-token tiles
    // run under PDL (bench/results/2026-11-27-h100-tcwpdl64*, tcw_pdl beside automatic_pdl in the same
    // runs: Qwen3 shared_expert.down 5.52-5.79 / 5.62-5.94 / 5.76-5.99 us at M = 33..64, k = 2 / 3 / 4,
    // against dequant_cublas' 6.07-6.22; at k = 5 6.08-6.32 against 6.19-6.22).
    if (M <= 64 && have_cublas && pdl_live && (M <= 32 || w.bits <= 4)) return Kernel::tcw;
    // Since tcw launches under live PDL above M = 64 too (KBIT_TCW_PDL_MAXM and KBIT_TCW_PDL_BIG,
    // tcw_common.cuh; 2026-11-27, thirty-third session). H100, tcw_pdl beside automatic_pdl, which took
    // dequant_cublas on these rows (bench/results/2026-11-27-h100-pdlbig, k = 2, 4), then automatic_pdl and
    // tcw_pdl old / new at M = 80..256, k = 2..5 (-pdlland): tcw beats dequant_cublas
    // - at M = 65..128 on every catalogue shape but the short narrow rows (K < 1024, N < 8192: Qwen3
    //   shared_expert.down 0.92-1.03x, GLM q_b_proj 0.88-1.08x): Qwen3 k_proj M = 96 8.28 -> 6.30 us at
    //   k = 4, GLM kv_b_proj (K = 512, N = 8960) 1.02-1.39x;
    // - at 129..192 on those rows of K > 512 (kv_b_proj there 0.89-1.03x): Qwen3 o_proj M = 192
    //   1.43-1.51x, q_proj 1.03-1.10x, GLM q_a_proj 0.97-1.09x;
    // - at 193..256 on rows of K >= 4096 (Qwen3 o_proj 1.08-1.62x, Llama-3-8B k/v_proj 1.06-1.31x; the
    //   rows of K = 2048 mixed: Qwen3 q_proj 0.94-1.05x, GLM q_a_proj 0.80-0.93x).
    // Above M = 256 at k <= 4 (bench/results/2026-11-27-h100-late3san/pdl: tcw_pdl beside automatic_pdl, two
    // reps, the dense block shapes below 40 M weights at M = 320..512, k = 2..5; then automatic_pdl old / new in
    // one call, three reps, M = 288..448, the non-block shapes of these rows too, -pdl448) tcw beats it
    // - on wide rows (N >= 8192) of 16-24 M weights to M = 384: Qwen3 dense.gate_up (21 M) 1.09-1.41x at
    //   M = 288..384 (53.0 -> 37.6 us at M = 320, k = 2), q_proj_gated (16.8 M) 1.07-1.26x, GLM
    //   shared_experts.gate (21 M) 1.09-1.41x; but 0.86-0.93x at 448, 512 (-late3san). Larger ones to 320:
    //   Qwen3 in_proj_qkvz (25 M) 0.99-1.12x at 288, 320, 0.94-1.01x at 352, 384. Llama-3-8B q/o_proj
    //   (N = 4096, 16.8 M) 0.89-0.99x;
    // - on rows of K >= 8192 from 8 M weights at M = 321..448: Llama-3-70B k/v_proj (8.4 M) 1.01-1.30x at
    //   352..448, 1.00-1.02x at 320, 0.94-0.98x at 288 (at 512 0.93-1.06x, -late3san).
    // At k = 5 the rows were mixed (0.83-1.15x). At M = 1024 the small shapes stay far behind (0.65-0.90x)
    // and the rules below stand.
    // Since tcw's 160-, 192- and 224-token tiles (2026-11-28, thirty-sixth session; bench/results/2026-11-28-h100-
    // widthsland: tcw_pdl beside dequant_cublas in one run, the dense catalogue shapes below 40 M weights,
    // M = 160..576, k = 2, 4; us dequant_cublas / tcw_pdl at k = 4) tcw also beats it
    // - at M = 129..320 on rows of K >= 2048 and N >= 4096 from 8 M weights: Qwen3 q_proj (8.4 M) 17.51 / 15.33 at
    //   M = 224, 18.14 / 15.63 at 256, 18.77 / 16.99 at 288, 17.94 / 17.16 at 320 (1.05-1.21x at k = 2; at 384
    //   and 512, 576 it loses, 0.86-1.00x);
    // - at M = 257..448 on rows of K >= 4096 from 8 M weights: Qwen3 o_proj (8.4 M) 1.04-1.31x (23.81 / 18.23 at
    //   M = 320), Llama-3-70B k/v_proj (8.4 M, K = 8192) at 288, 320 1.17-1.22x (21.32 / 18.28 at 288; 0.94-0.98x
    //   before the tiles, -late3san). At 512 these lose again (0.93-1.00x);
    // - at M = 513..576 from 4 M weights on rows of K >= 4096 and N <= 1024, and on rows of K >= 5120 and
    //   N <= 2048, where three 192-token tiles hold M: Llama-3-8B k/v_proj (4.2 M) 22.28 / 18.48, Llama-3-70B
    //   k/v_proj 35.00 / 28.85, Qwen3 dense.down 39.06 / 33.07, GLM shared_experts.down 72.67 / 58.97 at M = 576
    //   (1.12-1.25x at k = 2; Llama-3-8B q/o_proj, N = 4096, 0.91-0.93x).
    // Then automatic_pdl old / new in one call (bench/results/2026-11-28-h100-widthsdisp, k = 2, 3, 4, M = 256..576
    // with 540 off the grid): the 69 moved rows 1.13x geomean (0.99-1.27x; at M = 540 1.08x, 0.99-1.26x). Qwen3
    // o_proj (N = 2048, K = 4096) at 513..576 stays on dequant_cublas: 1.15-1.24x faster on tcw at M = 576 but
    // 0.86-0.93x at 540, where cuBLAS runs it in 25 us against 32 at 576.
    // k = 5 keeps the rules before (not measured).
    // Since k = 2 and 3's lone 64-token price (kTcwLone64K2, lib/kbit/tcw_sched.h; 2026-11-28, forty-sixth session)
    // the short rows take the bounds of the others at k <= 3 (tcw at 65..128, and at 129..192 where K > 512): H200,
    // tcw_pdl beside automatic_pdl (dequant_cublas there) in bench/results/2026-11-28-h200-s46l, two reps: Qwen3
    // shared_expert.down (K = 512) 1.047-1.081x at M = 80, 96, 128 (5.78 against 6.22 us at M = 128, k = 2; at 160..256
    // 0.94-0.99x, which K > 512 keeps off), GLM q_b_proj (K = 768) 1.014-1.094x at 80..128, 0.995-1.145x at 160, 192.
    // KBIT_TCW_SHORT_PDL=0 in the environment restores the rule before, for A/B runs.
    if (pdl_live && have_cublas && M <= 576 && detail::tcw_pdl_above64(w.bits)) {
      const bool short_off = w.K < 1024 && w.N < 8192 && !(w.bits <= 3 && detail::tcw_short_rows_pdl());
      if (M <= 256 && (M <= 128 ? !short_off : M <= 192 ? !short_off && w.K > 512 : w.K >= 4096))
        return Kernel::tcw;
      // The small narrow rows (N <= 1024, K >= 2048) at k <= 3 to M = 256, and those of K >= 4096 to 320, since k = 2
      // and 3's lone 64-token price: H200, tcw_pdl beside dequant_cublas, M = 192..448 in steps of 32, three reps
      // (bench/results/2026-11-28-h200-s47d). Faster than dequant_cublas in every rep: Qwen3 k/v_proj (512 x 2048)
      // 1.26-1.32x at 224, 256 (6.50 against 8.33 us at 256, k = 2), GLM kv_a_proj_with_mqa (576 x 2048) 1.05-1.27x,
      // Qwen3 shared_expert.gate_up (1024 x 2048) 1.06-1.13x; Llama-3-8B k/v_proj (1024 x 4096) 1.07-1.13x at 288, 320.
      // Slower: GLM q_a_proj (768 x 2048) 0.93-0.97x at 224, 256, where cuBLAS runs N = 768 well (8.63 us against
      // 9.66 on kv_a_proj's N = 576); no bound on N parts it from the winners (N = 576 and 1024 gain). Above these
      // bounds the rows are mixed (0.75-1.16x). Then automatic_pdl old / new (bench/results/2026-11-28-h200-s47l,
      // three reps): the 28 moved rows 1.135x geomean (0.932-1.326). KBIT_TCW_SMALL_PDL=0 in the environment restores
      // the rule before, for A/B runs.
      if (w.bits <= 3 && w.N <= 1024 && w.K >= 2048 && (M <= 256 || (M <= 320 && w.K >= 4096)) &&
          detail::tcw_small_pdl())
        return Kernel::tcw;
      if (w.bits <= 4) {
        if (M <= (weights < 24.0e6 ? 384 : 320) && w.N >= 8192 && weights >= 16.0e6) return Kernel::tcw;
        // (this one holds the rows of K >= 8192 from 8 M weights at 321..448 of -late3san/-pdl448 as well)
        if (M > 256 && M <= 448 && w.K >= 4096 && weights >= 8.0e6) return Kernel::tcw;
        if (M > 128 && M <= 320 && w.K >= 2048 && w.N >= 4096 && weights >= 8.0e6) return Kernel::tcw;
        if (M > 512 && w.K >= 4096 && (w.N <= 1024 || (w.N <= 2048 && w.K >= 5120)) && weights >= 4.0e6)
          return Kernel::tcw;
      }
    }
    if (M > 64 && M <= 128 && weights >= 4.0e6 && (w.K > 512 || !have_cublas)) return Kernel::tcw;
    // Since tcw's cluster slices (KBIT_TCW_CLUSTER, tcw_common.cuh; 2026-11-27, thirty-fourth session): where
    // tcw's plan runs them, tcw launched plainly beat dequant_cublas in the same call (bench/results/2026-11-27-
    // h100-clland): Llama-3-8B q/o_proj M = 512 33.9-38.9 against 38.6-41.3 us, Qwen3 q_proj M = 256 15.3-18.2
    // against 17.9-18.7 (k = 2..5); their fp32 partials were the loss before. Then automatic and automatic_pdl
    // old / new at M = 160..512 (-cldisp): from 8 M weights at 129..256 (Qwen3 q_proj M = 224, 256 0.99-1.21x),
    // from 16 M at 257..512 (Llama-3-8B q/o_proj 1.02-1.32x at k <= 4), but Qwen3 q_proj (8.4 M) at M = 288, 352
    // lost 0.81-0.98x at k = 4, 5 and Llama-3-8B at M = 288, k = 5, 0.92-0.96x, so k = 5 only above M = 320.
    const bool cluster_bounds = M > 128 && M <= 512 && weights >= (M <= 256 ? 8.0e6 : 16.0e6) &&
                                (M <= 256 || M > 320 || w.bits <= 4);
    if (have_cublas && cluster_bounds && detail::tcw_cluster_slices(M, w, act, pdl_live)) return Kernel::tcw;
    // Since tcw chooses its token tile by its cost model (tcw_choose_tile, 2026-11-27, thirty-first
    // session; bench/results/2026-11-27-h100-tileland), on rows of K >= 5120 it takes 8 M weights at
    // 129..256 (Llama-3-70B k/v_proj, 8.4 M: 1.09-1.14x ahead of dequant_cublas at M = 256) and 10 M at
    // 257..512 (Qwen3 dense.down, GLM o_proj, 10.5 M: 1.00-1.12x ahead at M = 384, 512); on shorter rows
    // the bounds stand (Qwen3 q_proj, 8.4 M, K = 2048: dequant_cublas 1.10x ahead at M = 256; o_proj,
    // K = 4096: even).
    const bool long_rows = w.K >= 5120;
    if (M <= 256 && weights >= (have_cublas && !long_rows ? 10.0e6 : 8.0e6)) return Kernel::tcw;
    if (M <= 512 && ((long_rows && weights >= (have_cublas ? 10.0e6 : 8.0e6)) || weights >= 40.0e6))
      return Kernel::tcw;
    // At 513..1024 from 40 M weights at k <= 4 since tcw's mbarrier stages (bench/results/2026-11-27-
    // h100-sk128land/ldisp, tcw_pdl against dequant_cublas at M = 1024: 1.12-1.25x at k = 2, 1.04-1.15x
    // at k = 4 on every such shape, at k = 5 0.92-0.99x; then automatic old / new in one call, bench/
    // results/2026-11-27-h100-m1024/disp: 1.07-1.31x on the rows that moved, k = 3 1.09-1.23x, Llama-3-70B
    // mlp.down 849 -> 715 us at k = 4).
    // Without a handle the alternative is mma, 2.7-4.7x slower than tcw at M = 1024 on every Llama-3
    // shape from 4.2 M weights up (k = 4, 5; bench/results/2026-11-27-h100-m1024/mma: Llama-3-8B k_proj
    // 85.5 against 31.1 us, Llama-3-70B mlp.down 3332 against 751): tcw from 4 M there (at 257..512 the
    // earlier bounds stand, not measured again).
    if (M > 512 && M <= 1024 && (have_cublas ? weights >= 40.0e6 && w.bits <= 4 : weights >= 4.0e6))
      return Kernel::tcw;
  }
  // (dequant_cublas needs a handle, and a K its dequantize takes.)
  if (!have_cublas || !detail::dequant_fits(w)) return Kernel::mma;
  // Above M = 16, mma against dequantize + cuBLAS in the same sweep (2026-11-23-h100-tcv, all 27
  // block shapes): dequantizing 2 bytes per weight costs more than mma's whole GEMM on large
  // weights: at M = 32 mma wins from 16.8 M weights up (Llama-3-70B gate_up 327 vs 874 us) and
  // loses below 10.5 M; at M = 64 it wins from 41.9 M up (gate_up 484 vs 878 us) and loses at
  // 21 M and below; at M = 128 the two tie on the largest shapes, dequant + cuBLAS wins the rest.
  if (M <= 32 && weights >= 16.0e6) return Kernel::mma;
  if (M <= 64 && weights >= 40.0e6) return Kernel::mma;
  return Kernel::dequant_cublas;
}

size_t linear_workspace_bytes(int64_t M, const TiledView& w, Act act, Kernel kernel) {
  if (kernel == Kernel::automatic) {
    // Enough for either choice: the caller may pass a cuBLAS handle or not (without one, dispatch
    // runs mma where it would run dequant_cublas, and mma's split-K partials can be larger).
    // With LinearArgs::pdl dispatch may choose differently again (choose_kernel's pdl rules).
    size_t most = 0;
    for (bool cublas : {true, false})
      for (bool pdl : {false, true})
        most = std::max(most, linear_workspace_bytes(M, w, act, choose_kernel(M, w, act, cublas, pdl)));
    return most;
  }
  switch (kernel) {
    case Kernel::gemv: return M >= 1 && M <= 4 ? detail::gemv_workspace_bytes(M, w) : 0;
    case Kernel::mma: return M >= 1 ? detail::mma_workspace_bytes(M, w) : 0;
    case Kernel::tcv: return M >= 1 && M <= 16 ? detail::tcv_workspace_bytes(M, w, act) : 0;
    case Kernel::tcw: return M >= 1 && M <= detail::kTcwMaxM ? detail::tcw_workspace_bytes(M, w) : 0;
    case Kernel::dequant_cublas: return static_cast<size_t>(w.N) * w.K * 2;
    default: return 0;
  }
}

Status linear(const LinearArgs& args) {
  // The launchers follow a.pdl as it is: it stays on only where PDL is live.
  LinearArgs a = args;
  a.pdl = args.pdl && detail::device_has_pdl();
  if (Status s = check_weights(a.w, true); s != Status::ok) return s;
  if (Status s = check_act(a.A, a.C, a.M, "M"); s != Status::ok) return s;
  if (a.act != Act::f16 && a.act != Act::bf16) return fail(Status::bad_dtype, "act must be f16 or bf16");
  if (a.M == 0) return ok();
  Kernel k = a.kernel == Kernel::automatic ? choose_kernel(a.M, a.w, a.act, a.cublas != nullptr, a.pdl) : a.kernel;
  const size_t need = linear_workspace_bytes(a.M, a.w, a.act, k);
  if (!have_workspace(need, a.workspace, a.workspace_bytes))
    return fail(Status::workspace_too_small, std::string("kernel ") + kernel_name(k) + " needs " + std::to_string(need) +
                                                 " workspace bytes, got " + std::to_string(a.workspace_bytes));
  if (need > 0 && !aligned(a.workspace, 16))
    return fail(Status::misaligned, "workspace must be 16-byte aligned (it is read and written as 16-byte vectors)");
  cudaError_t e = cudaSuccess;
  switch (k) {
    case Kernel::v0: e = detail::launch_v0_linear(a); break;
    case Kernel::gemv:
      if (a.M > 4) return fail(Status::bad_kernel, "kernel gemv takes M = 1..4, got M = " + std::to_string(a.M));
      if (!detail::gemv_fits(a.w))
        return fail(Status::bad_kernel, "kernel gemv takes weights of fewer than 2^32 packed words, got " +
                                            std::to_string(a.w.expert_words()));
      e = detail::launch_gemv(a);
      break;
    case Kernel::mma: e = detail::launch_mma(a); break;
    case Kernel::tcv:
      if (a.M > 16) return fail(Status::bad_kernel, "kernel tcv takes M = 1..16, got M = " + std::to_string(a.M));
      e = detail::launch_tcv(a);
      break;
    case Kernel::tcw:
      if (a.M > detail::kTcwMaxM)
        return fail(Status::bad_kernel, "kernel tcw takes M <= " + std::to_string(detail::kTcwMaxM) +
                                            " (256-token tiles on a 65535-row grid), got M = " + std::to_string(a.M));
      if (!detail::tcw_available())
        return fail(Status::bad_kernel, "kernel tcw needs a build for sm_90a (KBIT_CUDA_ARCHS=90a) and an sm_90 GPU (H100/H200)");
      e = detail::launch_tcw(a);
      break;
    case Kernel::dequant_cublas: return run_dequant_cublas(a);
    default: return fail(Status::bad_kernel, "unknown kernel");
  }
  if (e != cudaSuccess) return cuda_fail(e, kernel_name(k));
  return ok();
}

// The least k for which the short-row MoE rule below keeps grouped_gemv (an A/B knob: 2 restores the
// rule before 2026-11-27).
#ifndef KBIT_MOE_GEMV_SHORT_MIN_BITS
#define KBIT_MOE_GEMV_SHORT_MIN_BITS 5
#endif
// The least N for which that rule also keeps grouped_gemv on rows of K > 512 (an A/B knob: a huge
// value restores the rule before 2026-11-27's second audit, short rows only).
#ifndef KBIT_MOE_GEMV_K5_MIN_N
#define KBIT_MOE_GEMV_K5_MIN_N 2048
#endif

namespace {
// choose_moe_kernel, where `tcw` says whether grouped_tcw may run (sm_90a, and moe_linear: the
// workspace it needs was given).
MoeKernel choose_moe(int64_t total_rows, const TiledView& w, bool tcw) {
  // grouped_tcv beat grouped_gemv and grouped_mma from 1 to 16 mean rows per active expert on the
  // H100 (2026-11-23-h100-tcv: Qwen3 experts.gate_up M = 8: 49 vs 64 us; M = 64: 208 vs 309 us;
  // experts.down M = 8..64: 31..136 vs 43..212 us), except with short rows and few rows in all
  // (Qwen3 experts.down, K = 512, at 10 and 20 routed rows: grouped_gemv 8.5 vs 11.6 us, 14.1 vs 14.4).
  // By the mean rows per active expert (its host-side bound: at most min(E, rows) experts are
  // active), not the maximum: a skewed routing gives the busiest expert several work items of the
  // grouped gemv, and kbit-bench on the H100 had grouped_gemv ahead of grouped_mma at Qwen3 M = 64
  // and 128 (mean 1.25 and 2.5 rows, max ~40-90) where the maximum picked grouped_mma.
  // Since grouped_tcv decodes k = 2..4 by pair tables, it wins Qwen3 experts.down at 20 routed rows
  // too (H100, bench/results/2026-11-26-h100-moeshortk: 9.41 / 10.68 / 11.41 vs grouped_gemv's 9.89 /
  // 11.34 / 11.88 us at k = 2 / 3 / 4, k = 5 a tie), while grouped_gemv keeps 10 rows (6.15-7.80 vs
  // 7.88-9.74 us): the short-row rule went from 24 to 16 rows.
  // Since then grouped_tcv's lean step loops (2026-11-27) took those 10 rows at k = 2..4 as well
  // (bench/results/2026-11-27-h100-moeshort, automatic_pdl against the rule at every width, one call:
  // Qwen3 experts.down at M = 1 4.69 / 5.31 / 5.65 -> 4.54 / 5.30 / 5.56 us at k = 2 / 3 / 4; plainly
  // launched in -daudit/audit 5.14 / 5.93 / 6.08 against grouped_gemv's 5.31 / 5.94 / 6.23); at k = 5,
  // without a pair table, grouped_gemv keeps them (6.91 against 9.52).
  // At k = 5 grouped_gemv also takes up to 16 rows of wide experts (N >= 2048): the audit with the
  // grouped kernels under PDL (bench/results/2026-11-27-h100-daudit2, grouped_gemv_pdl against
  // grouped_tcv_pdl) had it ahead on GLM-4.7-Flash experts.down at M = 1..4 (4..16 rows: 6.99 / 9.47 /
  // 14.57 / 16.14 against 7.46 / 12.69 / 16.39 / 20.99 us) and experts.gate_up (11.53 / 18.17 / 28.17 /
  // 33.84 against 11.93 / 20.09 / 28.55 / 35.34), where grouped_tcv's table-less grid (grouped_tcv_kw)
  // runs up to two waves; not on Qwen3 experts.gate_up (N = 1024) at 10 rows (11.49 against 10.55).
  // Past 16 rows grouped_gemv's cost grows with the rows that share an expert (one work item each,
  // at one mean row per expert), grouped_tcv's with the experts: Qwen3 at 30 rows 18.62 against 12.75.
  // At 17..20 rows, k = 5, on rows of K >= 2048 as well (H100, bench/results/2026-11-28-h100-moesmall-s39,
  // grouped_gemv_pdl against grouped_tcv_pdl, best of 3): Qwen3 experts.gate_up at 20 rows (M = 2) 15.94 against 19.03 us, where
  // grouped_tcv_kw's k = 5 grid is ~1.6 waves (kw = 4, 1,280 CTAs), and GLM experts.gate_up at 20 rows (M = 5) 41.13
  // against 44.04; not the shorter rows (Qwen3 experts.down, K = 512, ties at 20 rows: 11.96 against 11.81; GLM
  // experts.down, K = 1536, 27.65 against 21.28), nor 24 rows and more (GLM experts.gate_up 62.86 against 44.83).
  // The H200 agrees (bench/results/2026-11-28-h200-audit-s40, one rep; -final-s40, best of 3): Qwen3 experts.gate_up
  // at 20 rows 15.45 against 19.01 us, GLM experts.gate_up 40.25 against 44.59. There the short rows of Qwen3
  // experts.down (K = 512) go to grouped_gemv at 20 rows as well: 10.74 against 12.06 us (best of 3), where the H100
  // had grouped_tcv 1.3% ahead; GLM experts.down (K = 1536) stays on grouped_tcv (27.41 against 21.60 on the H200).
  const int64_t mean = detail::moe_mean_rows(w.E, total_rows);
  const bool gemv_short = total_rows <= 16 && w.bits >= KBIT_MOE_GEMV_SHORT_MIN_BITS &&
                          (w.K <= 512 || w.N >= KBIT_MOE_GEMV_K5_MIN_N);
  const bool gemv_k5_long = total_rows > 16 && total_rows <= 20 && w.bits >= 5 && (w.K >= 2048 || w.K <= 512);
  // On the H200 grouped_gemv keeps the short rows of one token at k = 3, 4 too, one row per expert (moe_gemv_short_fast,
  // lib/kbit/moe_sched.h: Qwen3 experts.down at 10 rows 5.13 / 5.37 us against grouped_tcv's 5.45 / 5.69 under PDL,
  // three reps, bench/results/2026-11-28-h200-moem1; the H100 had grouped_tcv even or ahead). Plain launches follow
  // (automatic 5.73 / 5.93 us in -moem1/land against grouped_tcv's 6.24 at k = 4 in -record-s40, a cross-run figure).
  const bool gemv_short_fast = moe_gemv_short_fast(w.E, total_rows, w.bits, w.K, detail::device_peak_dram_gbps());
  if ((gemv_short || gemv_k5_long || gemv_short_fast) && detail::gemv_fits(w)) return MoeKernel::grouped_gemv;
  // grouped_tcw (sm_90a) from 8 mean rows, at k = 2, 3 and 4 (H100, bench/results/2026-11-25-h100-
  // groupedtcw/run1, against grouped_tcv): GLM-4.7-Flash experts at 8 mean rows (M = 128) down 72.7
  // vs 80.5 us, gate_up 134.7 vs 150.5 (k = 4), at 32 (M = 512) 110.4 vs 196.0 and 207.3 vs 366.9;
  // Qwen3-Coder-Next at 10 (M = 512) 249.9 vs 294.9 and 382.1 vs 457.5. grouped_tcv kept 4 mean rows
  // (GLM M = 64: 63.4 vs 70.5) and tied at 5 (Qwen3 M = 256: 225.7 vs 216.3, 338.1 vs 325.2).
  // Since the forty-fourth session from 6 mean rows at k = 4 on the pair table, and since the forty-fifth at k = 5,
  // where its 64-token tile rule is on (moe_tcw_min_mean, lib/kbit/moe_sched.h; grouped_tcw_mn64: KBIT_GTCW_MN64=0
  // restores 8 with the old tiles).
  if (tcw && mean >= moe_tcw_min_mean(w.bits, detail::grouped_tcw_mn64(w)) &&
      detail::grouped_tcw_ctas(total_rows, w) <= detail::kGroupedTcwMaxCtas)
    return MoeKernel::grouped_tcw;
  // Without it: with the k = 4 pair table grouped_tcv also wins at 32 mean rows (GLM-4.7-Flash
  // experts at M = 512, 2048 routed rows over 64 experts: gate_up 370.6 vs 417.7 us, down 192.4 vs
  // 213.2; record at 6b74702); more rows per expert were not measured.
  const int64_t tcv_rows = w.bits == 4 && detail::tcv_uses_pairs(w, true, mean) ? 32 : 16;
  return mean <= tcv_rows ? MoeKernel::grouped_tcv : MoeKernel::grouped_mma;
}
}  // namespace

MoeKernel choose_moe_kernel(int64_t total_rows, const TiledView& w, Act act, int max_rows_hint) {
  (void)act;
  (void)max_rows_hint;
  return choose_moe(total_rows, w, detail::tcw_available());
}

size_t moe_linear_workspace_bytes(int64_t total_rows, const TiledView& w, Act act, MoeKernel kernel) {
  const MoeKernel k = kernel == MoeKernel::automatic ? choose_moe_kernel(total_rows, w, act, 0) : kernel;
  return k == MoeKernel::grouped_tcw && total_rows > 0 ? detail::grouped_tcw_workspace_bytes(total_rows, w) : 0;
}

Status moe_linear(const MoeArgs& a) {
  if (Status s = check_weights(a.w, false); s != Status::ok) return s;
  if (Status s = check_act(a.A, a.C, a.total_rows, "total_rows"); s != Status::ok) return s;
  if (a.act != Act::f16 && a.act != Act::bf16) return fail(Status::bad_dtype, "act must be f16 or bf16");
  if (!a.expert_offsets) return fail(Status::null_pointer, "expert_offsets must be a device pointer (E + 1 int32)");
  if (a.w.E > 65535) return fail(Status::bad_shape, "at most 65535 experts are supported");
  if (a.total_rows > (1LL << 30)) return fail(Status::bad_shape, "total_rows above 2^30 is not supported");
  if (a.total_rows == 0) return ok();
  MoeArgs b = a;
  b.pdl = a.pdl && detail::device_has_pdl();  // the launchers follow b.pdl as it is
  b.max_rows_per_expert_hint = static_cast<int>(detail::moe_rows_hint(a.w.E, a.total_rows, a.max_rows_per_expert_hint));
  // The workspace, as in linear(): automatic falls back to a kernel that needs none when the
  // caller gave too little (or a misaligned one); an explicit kernel is refused.
  auto workspace_ok = [&](size_t need) {
    return have_workspace(need, a.workspace, a.workspace_bytes) && (need == 0 || aligned(a.workspace, 16));
  };
  MoeKernel k = a.kernel;
  if (k == MoeKernel::automatic) {
    k = choose_moe(a.total_rows, a.w, detail::tcw_available());
    if (!workspace_ok(moe_linear_workspace_bytes(a.total_rows, a.w, a.act, k))) k = choose_moe(a.total_rows, a.w, false);
  }
  if (k == MoeKernel::grouped_tcw) {
    if (!detail::tcw_available())
      return fail(Status::bad_kernel,
                  "kernel grouped_tcw needs a build for sm_90a (KBIT_CUDA_ARCHS=90a) and an sm_90 GPU (H100/H200)");
    if (const int64_t ctas = detail::grouped_tcw_ctas(a.total_rows, a.w); ctas > detail::kGroupedTcwMaxCtas)
      return fail(Status::bad_shape, "kernel grouped_tcw: N = " + std::to_string(a.w.N) + " with " + std::to_string(a.total_rows) +
                                         " routed rows needs " + std::to_string(ctas) + " CTAs, more than its 1D grid's " +
                                         std::to_string(detail::kGroupedTcwMaxCtas));
  }
  const size_t need = moe_linear_workspace_bytes(a.total_rows, a.w, a.act, k);
  if (!have_workspace(need, a.workspace, a.workspace_bytes))
    return fail(Status::workspace_too_small, std::string("kernel ") + moe_kernel_name(k) + " needs " + std::to_string(need) +
                                                 " workspace bytes (moe_linear_workspace_bytes), got " +
                                                 std::to_string(a.workspace_bytes));
  if (need > 0 && !aligned(a.workspace, 16))
    return fail(Status::misaligned, "workspace must be 16-byte aligned (it is read and written as 16-byte vectors)");
  cudaError_t e = cudaSuccess;
  switch (k) {
    case MoeKernel::v0: e = detail::launch_v0_moe(b); break;
    case MoeKernel::grouped_gemv:
      if (!detail::gemv_fits(b.w))
        return fail(Status::bad_kernel, "kernel grouped_gemv takes experts of fewer than 2^32 packed words, got " +
                                            std::to_string(b.w.expert_words()));
      e = detail::launch_grouped_gemv(b);
      break;
    case MoeKernel::grouped_mma: e = detail::launch_grouped_mma(b); break;
    case MoeKernel::grouped_tcv: e = detail::launch_grouped_tcv(b); break;
    case MoeKernel::grouped_tcw: e = detail::launch_grouped_tcw(b); break;
    default: return fail(Status::bad_kernel, "unknown MoE kernel");
  }
  if (e != cudaSuccess) return cuda_fail(e, moe_kernel_name(k));
  return ok();
}

Status dequantize(const TiledView& w, void* out, OutType type, cudaStream_t stream, bool v0) {
  if (Status s = check_weights(w, false); s != Status::ok) return s;
  if (!out) return fail(Status::null_pointer, "out must be a device pointer");
  if (!aligned(out, 16)) return fail(Status::misaligned, "out must be 16-byte aligned");
  if (!v0 && !detail::dequant_fits(w))
    return fail(Status::bad_shape, "weight shape " + shape_str(w) + ": dequantize takes K up to " +
                                       std::to_string(detail::kDequantMaxKTiles * kTileK) + " (v0 = true takes any K)");
  const cudaError_t e = v0 ? detail::launch_v0_dequant(w, out, type, stream) : detail::launch_dequant(w, out, type, stream);
  if (e != cudaSuccess) return cuda_fail(e, "dequantize");
  return ok();
}

}  // namespace kbit::gpu
