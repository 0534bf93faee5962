#include "runner.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>

#include "kbit/dtype.h"
#include "kbit/error.h"
#include "kbit/gpu.h"
#include "kbit/parallel.h"
#include "reference/dequantize.h"
#include "reference/exact_mode.h"
#include "reference/gemm.h"
#include "routing.h"
#include "sampling.h"
#include "stats.h"
#include "weights.h"

namespace kbit::verify {

cudaError_t square_inplace(float* x, int64_t n, cudaStream_t stream);  // elementwise.cu

namespace {

constexpr size_t kGuard = 256;              // guard bytes before and after C and the workspace
constexpr uint8_t kGuardByte = 0xA5;
constexpr uint8_t kPoisonByte = 0xFF;       // 0xFFFF: NaN in f16 and in bf16

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw CudaFailure(std::string(what) + ": " + cudaGetErrorName(e) + " " + cudaGetErrorString(e));
}
void cublas_ok(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw CudaFailure(std::string(what) + ": cuBLAS status " + std::to_string(int(s)));
}

// Device memory that only grows; data() sits kGuard bytes after the allocation start.
struct DevMem {
  char* base = nullptr;
  size_t cap = 0, bytes = 0;
  DevMem() = default;
  DevMem(const DevMem&) = delete;
  DevMem& operator=(const DevMem&) = delete;
  ~DevMem() { release(); }
  void release() {
    if (base) cudaFree(base);
    base = nullptr;
    cap = bytes = 0;
  }
  void* resize(size_t n) {
    if (n + 2 * kGuard > cap) {
      release();
      cuda_ok(cudaMalloc(reinterpret_cast<void**>(&base), n + 2 * kGuard), "cudaMalloc");
      cap = n + 2 * kGuard;
    }
    bytes = n;
    return data();
  }
  void* data() const { return base ? base + kGuard : nullptr; }
  template <class T>
  T* as() const { return static_cast<T*>(data()); }
  void poison(cudaStream_t s) {
    cuda_ok(cudaMemsetAsync(base, kGuardByte, kGuard, s), "poison guard");
    cuda_ok(cudaMemsetAsync(base + kGuard, kPoisonByte, bytes, s), "poison data");
    cuda_ok(cudaMemsetAsync(base + kGuard + bytes, kGuardByte, kGuard, s), "poison guard");
  }
  // Guard bytes that changed since poison() (synchronous).
  int64_t guard_damage() const {
    std::vector<uint8_t> g(2 * kGuard);
    cuda_ok(cudaMemcpy(g.data(), base, kGuard, cudaMemcpyDeviceToHost), "read guard");
    cuda_ok(cudaMemcpy(g.data() + kGuard, base + kGuard + bytes, kGuard, cudaMemcpyDeviceToHost), "read guard");
    return std::count_if(g.begin(), g.end(), [](uint8_t b) { return b != kGuardByte; });
  }
  void upload(const void* src, size_t n) {
    resize(n);
    if (n) cuda_ok(cudaMemcpy(data(), src, n, cudaMemcpyHostToDevice), "upload");
  }
};

struct DevWeights {
  DevMem packed, absmax, cb, cb_abs;
  TiledView view, abs_view;
  void upload(const HostWeights& w) {
    packed.upload(w.packed.data(), w.packed.size() * 4);
    absmax.upload(w.absmax.data(), w.absmax.size());
    cb.upload(w.codebook.data(), w.codebook.size() * 4);
    cb_abs.upload(w.codebook_abs.data(), w.codebook_abs.size() * 4);
    view = w.view();  // shape and half_cb; device pointers below
    view.packed = packed.as<uint32_t>();
    view.absmax = absmax.as<uint8_t>();
    view.codebook = cb.as<float>();
    abs_view = view;
    abs_view.codebook = cb_abs.as<float>();
  }
};

gpu::Act act_of(Precision p) { return p == Precision::bf16 ? gpu::Act::bf16 : gpu::Act::f16; }
gpu::OutType out_of(Precision p) {
  return p == Precision::f32 ? gpu::OutType::f32 : p == Precision::bf16 ? gpu::OutType::bf16 : gpu::OutType::f16;
}
cudaDataType cuda_type(Precision p) {
  return p == Precision::f32 ? CUDA_R_32F : p == Precision::bf16 ? CUDA_R_16BF : CUDA_R_16F;
}

gpu::Kernel dense_kernel(const std::string& k) {
  if (k == "v0") return gpu::Kernel::v0;
  if (k == "gemv") return gpu::Kernel::gemv;
  if (k == "mma") return gpu::Kernel::mma;
  if (k == "tcv") return gpu::Kernel::tcv;
  if (k == "tcw") return gpu::Kernel::tcw;
  if (k == "dequant_cublas") return gpu::Kernel::dequant_cublas;
  return gpu::Kernel::automatic;
}
gpu::MoeKernel moe_kernel(const std::string& k) {
  if (k == "v0") return gpu::MoeKernel::v0;
  if (k == "grouped_gemv") return gpu::MoeKernel::grouped_gemv;
  if (k == "grouped_mma") return gpu::MoeKernel::grouped_mma;
  if (k == "grouped_tcv") return gpu::MoeKernel::grouped_tcv;
  if (k == "grouped_tcw") return gpu::MoeKernel::grouped_tcw;
  return gpu::MoeKernel::automatic;
}

// Whether Status::bad_kernel is a failure: v0 and automatic run everything, gemv must take
// M = 1..4, tcv M = 1..16, grouped_gemv and grouped_tcv are "correct for any" tokens per expert (gpu.h), tcw and
// grouped_tcw run everything wherever tcw_supported(). Others may decline (n/a).
bool must_run(const CaseSpec& c) {
  if (c.kernel == "v0" || c.kernel == "automatic" || c.kernel == "grouped_gemv" || c.kernel == "grouped_tcv") return true;
  if (c.kernel == "gemv") return c.M >= 1 && c.M <= 4;
  if (c.kernel == "tcv") return c.M >= 1 && c.M <= 16;
  if (c.kernel == "tcw" || c.kernel == "grouped_tcw") return gpu::tcw_supported();  // any M where it runs at all
  return false;
}

// Host floats of a device array in dtype p (n elements).
std::vector<float> download(const void* d, int64_t n, Precision p, int threads) {
  std::vector<float> out(size_t(std::max<int64_t>(n, 0)));
  if (n <= 0) return out;
  if (p == Precision::f32) {
    cuda_ok(cudaMemcpy(out.data(), d, size_t(n) * 4, cudaMemcpyDeviceToHost), "download");
    return out;
  }
  std::vector<uint16_t> h(static_cast<size_t>(n));
  cuda_ok(cudaMemcpy(h.data(), d, size_t(n) * 2, cudaMemcpyDeviceToHost), "download");
  parallel_for(n, threads, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) out[size_t(i)] = from_bits(p, h[size_t(i)]);
  });
  return out;
}

void upload_as(DevMem& d, const std::vector<float>& x, Precision p) {
  if (p == Precision::f32) {
    d.upload(x.data(), x.size() * 4);
    return;
  }
  std::vector<uint16_t> h(x.size());
  for (size_t i = 0; i < x.size(); ++i) h[i] = bits_of(p, x[i]);
  d.upload(h.data(), h.size() * 2);
}

// Parallel check over rows: fn(checker, row) adds that row's elements; per-chunk checkers merged.
template <class Fn>
CheckResult check_rows(const std::string& name, bool exact, int64_t rows, int threads, double nmse_scale, Fn&& fn) {
  Checker total(name, exact);
  std::mutex mu;
  parallel_for(rows, threads, [&](int64_t r0, int64_t r1) {
    Checker local(name, exact);
    for (int64_t r = r0; r < r1; ++r) fn(local, r);
    std::lock_guard<std::mutex> lock(mu);
    total.merge(local);
  });
  return total.finish(nmse_scale);
}

}  // namespace

bool cuda_device_available(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why) *why = e != cudaSuccess ? std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e) : "no CUDA device";
    return false;
  }
  return true;
}

struct Runner::Impl {
  uint64_t master;
  RunnerOptions opt;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cudaDeviceProp prop{};

  // Weights of one (label, E, N, K, k), reused by consecutive cases.
  std::string wkey;
  HostWeights w_real, w_exact;
  DevWeights d_real, d_exact;
  DevMem w_abs32, w_sq32;        // |W'|, W'^2 fp32 (realistic weights)
  bool have_stats_weights = false;
  bool have_exact = false;
  Precision w_act_dtype = Precision::f32;
  DevMem w_act, w_act_exact;     // W' in the activation dtype by the GPU dequantize (cuBLAS input)
  std::string w_act_error;

  // One group (all kernels of a case name minus the kernel).
  std::string gkey;
  int64_t rows = 0, N = 0, K = 0;
  RoutingPlan plan;              // dense: one "expert" with all rows
  DevMem d_offsets;
  std::vector<float> A, A_exact;
  std::vector<double> SA;
  DevMem dA, dA_exact, dA_abs, dA_sq, d_tmp;
  std::vector<float> cub, cub_exact, S, Q;
  std::string cub_error;
  bool full = false;
  std::vector<Element> elems;
  std::vector<float> ref, ref_exact;  // full: rows*N; else one per element of elems
  std::vector<int64_t> elem_row_start;  // full == false: index of the first element of each row

  DevMem C, ws;

  Impl(uint64_t m, RunnerOptions o) : master(m), opt(o) {
    cuda_ok(cudaSetDevice(0), "cudaSetDevice");
    cuda_ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    // A blocking stream: the synchronous cudaMemcpy uploads/downloads (legacy default stream)
    // are ordered after everything queued on it, and kernels queued after them wait for them.
    cuda_ok(cudaStreamCreate(&stream), "cudaStreamCreate");
    if (opt.cublas) {
      cublas_ok(cublasCreate(&cublas), "cublasCreate");
      cublas_ok(cublasSetStream(cublas, stream), "cublasSetStream");
    }
  }
  ~Impl() {
    if (cublas) cublasDestroy(cublas);
    if (stream) cudaStreamDestroy(stream);
  }
  void sync(const char* what) { cuda_ok(cudaStreamSynchronize(stream), what); }

  // C[rows, N] (dtype ct) = A[rows, K] (dtype at) * W[N, K]^T, fp32 compute, per expert of plan.
  bool baseline_math = false;
  void gemm_nt(const void* dA_, const void* dW, void* dC, Precision at, Precision ct, bool pedantic) {
    const float one = 1.0f, zero = 0.0f;
    // The reference must accumulate in fp32 all the way: without DISALLOW_REDUCED_PRECISION_REDUCTION
    // cuBLAS may reduce split-K partials in the fp16/bf16 output type (seen on the H100: exact-mode
    // sums off by one output ulp).
    // The timed baseline (--time) runs cuBLAS as users do: plain default math.
    const cublasMath_t mode =
        baseline_math ? CUBLAS_DEFAULT_MATH
        : pedantic ? CUBLAS_PEDANTIC_MATH
                 : static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
    cublas_ok(cublasSetMathMode(cublas, mode), "cublasSetMathMode");
    const size_t ab = size_t(precision_bytes(at)), cb = size_t(precision_bytes(ct));
    for (int64_t e = 0; e + 1 < int64_t(plan.offsets.size()); ++e) {
      const int64_t r0 = plan.offsets[size_t(e)], n = plan.rows_of(e);
      if (n == 0) continue;
      const char* a = static_cast<const char*>(dA_) + size_t(r0 * K) * ab;
      const char* w = static_cast<const char*>(dW) + size_t(e * N * K) * ab;
      char* c = static_cast<char*>(dC) + size_t(r0 * N) * cb;
      cublas_ok(cublasGemmEx(cublas, CUBLAS_OP_T, CUBLAS_OP_N, int(N), int(n), int(K), &one, w, cuda_type(at), int(K), a,
                             cuda_type(at), int(K), &zero, c, cuda_type(ct), int(N), CUBLAS_COMPUTE_32F,
                             CUBLAS_GEMM_DEFAULT),
                "cublasGemmEx");
    }
  }

  void ensure_weights(const CaseSpec& c) {
    if (wkey == c.weight_key()) return;
    wkey.clear();
    gkey.clear();  // group references were computed from the old weights
    have_stats_weights = false;
    w_act_dtype = Precision::f32;
    const uint64_t seed = c.weight_seed(master);
    w_real = make_random_weights(c.bits, c.E, c.N, c.K, seed, opt.threads);
    d_real.upload(w_real);
    have_exact = false;
    wkey = c.weight_key();
  }
  // Exact-mode weights of the current weight key, made on first use (dequantize cases of the
  // same key run first and do not need them).
  void ensure_exact_weights(const CaseSpec& c) {
    if (have_exact || c.family == Family::dequant || !opt.exact) return;
    w_exact = make_exact_weights_parallel(c.bits, c.E, c.N, c.K, derive_seed(c.weight_seed(master), "exact"), opt.threads);
    d_exact.upload(w_exact);
    have_exact = true;
    w_act_dtype = Precision::f32;  // the cuBLAS inputs include the exact weights: recompute
  }

  // |W'| and W'^2 in fp32 for S and Q (the abs codebook dequantizes the same bytes to |W'|).
  void ensure_stats_weights() {
    if (have_stats_weights) return;
    const int64_t n = w_real.E * w_real.N * w_real.K;
    w_abs32.resize(size_t(n) * 4);
    w_sq32.resize(size_t(n) * 4);
    const gpu::Status s = gpu::dequantize(d_real.abs_view, w_abs32.data(), gpu::OutType::f32, stream, true);
    if (s != gpu::Status::ok)
      throw CudaFailure(std::string("reference |W'|: kbit::gpu::dequantize(v0, f32) returned ") + gpu::status_name(s) +
                        ": " + gpu::status_message());
    cuda_ok(cudaMemcpyAsync(w_sq32.data(), w_abs32.data(), size_t(n) * 4, cudaMemcpyDeviceToDevice, stream), "copy");
    cuda_ok(square_inplace(w_sq32.as<float>(), n, stream), "square kernel");
    sync("stats weights");
    have_stats_weights = true;
  }

  void ensure_act_weights(Precision p) {
    if (w_act_dtype == p || !opt.cublas) return;
    w_act_error.clear();
    const int64_t n = w_real.E * w_real.N * w_real.K;
    w_act.resize(size_t(n) * 2);
    gpu::Status s = gpu::dequantize(d_real.view, w_act.data(), out_of(p), stream, false);
    if (s == gpu::Status::ok && opt.exact) {
      w_act_exact.resize(size_t(n) * 2);
      s = gpu::dequantize(d_exact.view, w_act_exact.data(), out_of(p), stream, false);
    }
    if (s != gpu::Status::ok)
      w_act_error = std::string("reference W' for cuBLAS: kbit::gpu::dequantize(fast) returned ") + gpu::status_name(s) +
                    ": " + gpu::status_message();
    sync("dequantize for cuBLAS");
    w_act_dtype = p;
  }

  void ensure_group(const CaseSpec& c) {
    if (gkey == c.group()) return;
    gkey.clear();
    N = c.N;
    K = c.K;
    const uint64_t seed = c.input_seed(master);
    if (c.family == Family::moe) plan = make_routing(c.routing, c.M, c.top_k, c.E, derive_seed(seed, "routing"));
    else plan = plan_from_counts({c.M});
    rows = plan.total_rows;
    std::vector<int32_t> off(plan.offsets.begin(), plan.offsets.end());
    d_offsets.upload(off.data(), off.size() * 4);
    const int th = opt.threads;

    A = make_activations(rows, K, c.dtype, derive_seed(seed, "A"), th);
    SA.assign(size_t(rows), 0.0);
    std::vector<float> a_abs(opt.cublas ? A.size() : 0), a_sq(opt.cublas ? A.size() : 0);
    parallel_for(rows, th, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) {
          const float v = A[size_t(r * K + k)];
          if (opt.cublas) {
            a_abs[size_t(r * K + k)] = std::fabs(v);
            a_sq[size_t(r * K + k)] = v * v;  // exact: <= 22 significant bits
          }
          s += std::fabs(v);
        }
        SA[size_t(r)] = s;
      }
    });
    upload_as(dA, A, c.dtype);
    if (opt.cublas) {
      dA_abs.upload(a_abs.data(), a_abs.size() * 4);
      dA_sq.upload(a_sq.data(), a_sq.size() * 4);
    }
    if (opt.exact) {
      A_exact = make_exact_activations(rows, K, derive_seed(seed, "A.exact"));
      upload_as(dA_exact, A_exact, c.dtype);
    }

    // GPU references: cuBLAS on W' in the dtype, S = |A| |W'|^T and Q = A^2 (W'^2)^T in fp32.
    // --no-cublas: S and Q come with the CPU references below.
    cub_error = w_act_error;
    cub.clear(), cub_exact.clear(), S.clear(), Q.clear();
    if (opt.cublas) gpu_references(c);

    // CPU references.
    full = full_reference(rows, N, K);
    elems.clear();
    elem_row_start.clear();
    const TiledView wv = w_real.view();
    if (full) {
      ref.assign(size_t(rows * N), 0.0f);
      if (c.family == Family::moe) moe_gemm_ref(A.data(), plan.offsets, wv, ref.data(), th);
      else gemm_ref(A.data(), rows, wv, ref.data(), th);
      if (opt.exact) {
        ref_exact.assign(size_t(rows * N), 0.0f);
        if (c.family == Family::moe) moe_gemm_ref(A_exact.data(), plan.offsets, w_exact.view(), ref_exact.data(), th);
        else gemm_ref(A_exact.data(), rows, w_exact.view(), ref_exact.data(), th);
      }
      if (!opt.cublas) {
        S.assign(size_t(rows * N), 0.0f);
        Q.assign(size_t(rows * N), 0.0f);
        stats_ref(A.data(), plan.offsets, wv, S.data(), Q.data(), th);
      }
    } else {
      elems = select_elements(rows, N, c.family == Family::moe ? plan.offsets : std::vector<int64_t>{},
                              opt.sample_budget, derive_seed(seed, "sample"));
      ref.assign(elems.size(), 0.0f);
      ref_exact.assign(opt.exact ? elems.size() : 0, 0.0f);
      if (!opt.cublas) {  // one per element of elems, like ref
        S.assign(elems.size(), 0.0f);
        Q.assign(elems.size(), 0.0f);
      }
      parallel_for(int64_t(elems.size()), th, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) {
          const Element& el = elems[size_t(i)];
          const int64_t e = plan.expert_of_row(el.row);
          ref[size_t(i)] = gemm_element_ref(A.data() + el.row * K, wv, e, el.col);
          if (opt.exact) ref_exact[size_t(i)] = gemm_element_ref(A_exact.data() + el.row * K, w_exact.view(), e, el.col);
          if (!opt.cublas) {
            const ElementStats st = stats_element_ref(A.data() + el.row * K, wv, e, el.col);
            S[size_t(i)] = st.S;
            Q[size_t(i)] = st.Q;
          }
        }
      });
      elem_row_start.assign(size_t(rows + 1), 0);
      for (const Element& el : elems) ++elem_row_start[size_t(el.row + 1)];
      for (int64_t r = 0; r < rows; ++r) elem_row_start[size_t(r + 1)] += elem_row_start[size_t(r)];
    }
    gkey = c.group();
  }

  // cuBLAS references of the current group: cub (and cub_exact) in the dtype, S and Q in fp32.
  void gpu_references(const CaseSpec& c) {
    const int th = opt.threads;
    ensure_stats_weights();
    d_tmp.resize(size_t(rows * N) * 4);
    gemm_nt(dA_abs.data(), w_abs32.data(), d_tmp.data(), Precision::f32, Precision::f32, true);
    S = download(d_tmp.data(), rows * N, Precision::f32, th);
    gemm_nt(dA_sq.data(), w_sq32.data(), d_tmp.data(), Precision::f32, Precision::f32, true);
    Q = download(d_tmp.data(), rows * N, Precision::f32, th);
    if (cub_error.empty()) {
      gemm_nt(dA.data(), w_act.data(), d_tmp.data(), c.dtype, c.dtype, false);
      cub = download(d_tmp.data(), rows * N, c.dtype, th);
      if (opt.exact) {
        gemm_nt(dA_exact.data(), w_act_exact.data(), d_tmp.data(), c.dtype, c.dtype, false);
        cub_exact = download(d_tmp.data(), rows * N, c.dtype, th);
      }
    }
    sync("references");
  }

  // One launch of the case's kernel on (A, weights) into C (poisoned, guarded). Returns the status.
  gpu::Status launch(const CaseSpec& c, const void* a, const TiledView& w, bool poison_ws, std::string* chosen) {
    const gpu::Act act = act_of(c.dtype);
    C.resize(size_t(rows * N) * 2);
    C.poison(stream);
    size_t wsb = 0;
    if (c.family == Family::dense) {
      wsb = gpu::linear_workspace_bytes(rows, w, act, dense_kernel(c.kernel));
      if (chosen && c.kernel == "automatic")
        *chosen = gpu::kernel_name(gpu::choose_kernel(rows, w, act, cublas != nullptr, opt.pdl));
    } else {
      wsb = gpu::moe_linear_workspace_bytes(rows, w, act, moe_kernel(c.kernel));
      if (chosen && c.kernel == "automatic")
        *chosen = gpu::moe_kernel_name(gpu::choose_moe_kernel(rows, w, act, int(plan.max_rows)));
    }
    if (poison_ws) {
      // The API contract (kbit/gpu.h): a workspace is zeroed once after allocation and the
      // kernels keep their split-K counters at zero. So poison the guards and zero the inside,
      // as a caller would; the second launch (rerun) then runs on the dirty workspace.
      ws.resize(wsb);
      ws.poison(stream);
      if (wsb) cuda_ok(cudaMemsetAsync(ws.data(), 0, wsb, stream), "zero workspace");
    }
    gpu::Status s;
    if (c.family == Family::dense) {
      gpu::LinearArgs args;
      args.A = a;
      args.C = C.data();
      args.M = rows;
      args.act = act;
      args.w = w;
      args.kernel = dense_kernel(c.kernel);
      args.workspace = wsb ? ws.data() : nullptr;
      args.workspace_bytes = wsb;
      args.cublas = cublas;  // null with --no-cublas: automatic never picks dequant_cublas
      args.stream = stream;
      args.pdl = opt.pdl;  // --pdl: the weights (and routings) are uploaded and synchronised before any launch
      if (cublas) cublas_ok(cublasSetMathMode(cublas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
      s = gpu::linear(args);
    } else {
      gpu::MoeArgs args;
      args.A = a;
      args.C = C.data();
      args.expert_offsets = d_offsets.as<int32_t>();
      args.total_rows = rows;
      args.act = act;
      args.w = w;
      args.kernel = moe_kernel(c.kernel);
      args.max_rows_per_expert_hint = int(plan.max_rows);
      args.workspace = wsb ? ws.data() : nullptr;
      args.workspace_bytes = wsb;
      args.stream = stream;
      args.pdl = opt.pdl;
      s = gpu::moe_linear(args);
    }
    return s;
  }

  // Launch + sync + errors. Returns "" when the launch ran, else the status text.
  std::string run_once(const CaseSpec& c, const void* a, const TiledView& w, bool poison_ws, std::string* chosen,
                       gpu::Status* status) {
    *status = launch(c, a, w, poison_ws, chosen);
    const cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) throw CudaFailure(std::string("after the kernel under test: ") + cudaGetErrorName(e) + " " +
                                            cudaGetErrorString(e) + " (the context is lost)");
    if (*status != gpu::Status::ok) return std::string(gpu::status_name(*status)) + ": " + gpu::status_message();
    return "";
  }

  CheckResult guard_check(bool with_ws) {
    Checker g("guards", true);
    const int64_t damaged = C.guard_damage() + (with_ws ? ws.guard_damage() : 0);
    for (int64_t i = 0; i < damaged; ++i) g.add_mismatch(-1, i, 0, double(kGuardByte));
    CheckResult r = g.finish();
    if (damaged) r.error = std::to_string(damaged) + " guard bytes around C or after the workspace were overwritten";
    r.compared = int64_t(2 * kGuard) * (with_ws ? 2 : 1);
    return r;
  }

  CheckResult check_cpu(const std::string& name, const std::vector<float>& got, const std::vector<float>& r, bool exact,
                        Precision p, const Tolerance& tol) {
    // S and Q are [rows, N] (cuBLAS, or CPU when full), or one per element of elems (CPU, sampled).
    const bool stats_per_element = !full && !opt.cublas;
    return check_rows(name, exact, rows, opt.threads, 1.0, [&](Checker& ch, int64_t row) {
      auto one = [&](int64_t col, float refv, size_t si) {
        const size_t i = size_t(row * N + col);
        const double g = got[i];
        if (exact) ch.add(row, col, g, round_to(p, refv), 0);
        else
          ch.add(row, col, g, refv, tol.elem(std::fabs(refv), S[si], SA[size_t(row)]),
                 tol.variance(std::fabs(refv), S[si], Q[si], SA[size_t(row)]));
      };
      if (full) {
        for (int64_t col = 0; col < N; ++col) one(col, r[size_t(row * N + col)], size_t(row * N + col));
      } else {
        for (int64_t i = elem_row_start[size_t(row)]; i < elem_row_start[size_t(row + 1)]; ++i) {
          const int64_t col = elems[size_t(i)].col;
          one(col, r[size_t(i)], stats_per_element ? size_t(i) : size_t(row * N + col));
        }
      }
    });
  }

  CheckResult check_cublas(const std::string& name, const std::vector<float>& got, const std::vector<float>& cb, bool exact,
                           const Tolerance& tol) {
    if (!opt.cublas) return CheckResult::skip(name, "--no-cublas");
    if (!cub_error.empty()) {
      CheckResult r;
      r.name = name;
      r.error = cub_error;
      return r;
    }
    return check_rows(name, exact, rows, opt.threads, 4.0, [&](Checker& ch, int64_t row) {
      for (int64_t col = 0; col < N; ++col) {
        const size_t i = size_t(row * N + col);
        if (exact) {
          ch.add(row, col, got[i], cb[i], 0);
          continue;
        }
        const double s = S[i], sa = SA[size_t(row)];
        const double rup = tol.ref_up_from_cublas(std::fabs(cb[i]), s, sa);
        ch.add(row, col, got[i], cb[i], 2.0 * tol.elem(rup, s, sa), tol.variance(rup, s, Q[i], sa));
      }
    });
  }

  CaseOutcome run_gemm(const CaseSpec& c) {
    CaseOutcome o;
    o.spec = c;
    ensure_weights(c);
    ensure_exact_weights(c);
    ensure_act_weights(c.dtype);
    ensure_group(c);
    gpu::Status st;
    std::string msg = run_once(c, dA.data(), d_real.view, true, &o.chosen, &st);
    if (st == gpu::Status::bad_kernel && !must_run(c)) {
      o.status = "n/a";
      o.message = msg;
      return o;
    }
    if (!msg.empty()) {
      o.status = "fail";
      o.message = "the kernel returned " + msg;
      return o;
    }
    // The tolerance of the kernel that ran (automatic: the one dispatch chose).
    const std::string& ran = c.kernel == "automatic" ? o.chosen : c.kernel;
    const int w_roundings = c.family == Family::dense ? gpu::weight_roundings(dense_kernel(ran), d_real.view, c.M)
                                                      : gpu::moe_weight_roundings(moe_kernel(ran), d_real.view, rows, int(plan.max_rows));
    const Tolerance tol = Tolerance::derive(c.dtype, c.K, w_roundings);
    const int th = opt.threads;
    std::vector<float> got = download(C.data(), rows * N, c.dtype, th);
    o.checks.push_back(guard_check(true));
    o.checks.push_back(check_cpu("cpu", got, ref, false, c.dtype, tol));
    o.checks.push_back(check_cublas("cublas", got, cub, false, tol));
    if (opt.rerun) {
      msg = run_once(c, dA.data(), d_real.view, false, nullptr, &st);
      if (!msg.empty()) {
        o.status = "fail";
        o.message = "the second launch returned " + msg;
        return o;
      }
      got = download(C.data(), rows * N, c.dtype, th);
      // --no-cublas: the second launch is checked against the CPU reference instead.
      if (opt.cublas) o.checks.push_back(check_cublas("cublas_rerun", got, cub, false, tol));
      else o.checks.push_back(check_cpu("cpu_rerun", got, ref, false, c.dtype, tol));
    }
    if (opt.exact) {
      msg = run_once(c, dA_exact.data(), d_exact.view, true, nullptr, &st);
      if (!msg.empty()) {
        o.status = "fail";
        o.message = "the exact-mode launch returned " + msg;
        return o;
      }
      got = download(C.data(), rows * N, c.dtype, th);
      o.checks.push_back(check_cpu("exact_cpu", got, ref_exact, true, c.dtype, tol));
      o.checks.push_back(check_cublas("exact_cublas", got, cub_exact, true, tol));
    }
    o.status = "pass";
    for (const auto& ch : o.checks)
      if (!ch.pass()) o.status = "fail";
    return o;
  }

  CaseOutcome run_dequant(const CaseSpec& c) {
    CaseOutcome o;
    o.spec = c;
    ensure_weights(c);
    const int64_t n = c.E * c.N * c.K;
    const size_t eb = size_t(precision_bytes(c.dtype));
    C.resize(size_t(n) * eb);
    C.poison(stream);
    const gpu::Status s = gpu::dequantize(d_real.view, C.data(), out_of(c.dtype), stream, c.kernel == "v0");
    const cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) throw CudaFailure(std::string("after kbit::gpu::dequantize: ") + cudaGetErrorString(e));
    if (s != gpu::Status::ok) {
      o.status = "fail";
      o.message = std::string("dequantize returned ") + gpu::status_name(s) + ": " + gpu::status_message();
      return o;
    }
    o.checks.push_back(guard_check(false));
    // Bit for bit, in chunks of rows so host memory stays bounded.
    const int64_t total_rows = c.E * c.N;
    const int64_t chunk = std::max<int64_t>(1, (int64_t(64) << 20) / (c.K * int64_t(eb)));
    Checker all("bits", true);
    std::vector<uint8_t> host;
    const TiledView wv = w_real.view();
    for (int64_t r0 = 0; r0 < total_rows; r0 += chunk) {
      const int64_t r1 = std::min(total_rows, r0 + chunk);
      host.resize(size_t((r1 - r0) * c.K) * eb);
      cuda_ok(cudaMemcpy(host.data(), C.as<char>() + size_t(r0 * c.K) * eb, host.size(), cudaMemcpyDeviceToHost),
              "download dequantized");
      std::mutex mu;
      parallel_for(r1 - r0, opt.threads, [&](int64_t a, int64_t b) {
        Checker local("bits", true);
        std::vector<float> row(static_cast<size_t>(c.K));
        for (int64_t i = a; i < b; ++i) {
          const int64_t r = r0 + i;
          dequantize_row_ref(wv, r / c.N, r % c.N, row.data());
          for (int64_t k = 0; k < c.K; ++k) {
            const size_t off = size_t(i * c.K + k);
            float got;
            bool same;
            const float want = round_to(c.dtype, row[size_t(k)]);
            if (c.dtype == Precision::f32) {
              std::memcpy(&got, host.data() + off * 4, 4);
              same = std::memcmp(&got, &want, 4) == 0;
            } else {
              uint16_t h;
              std::memcpy(&h, host.data() + off * 2, 2);
              got = from_bits(c.dtype, h);
              same = h == bits_of(c.dtype, row[size_t(k)]);
            }
            if (same) local.add(r, k, got, want, 0);
            else local.add_mismatch(r, k, got, want);
          }
        }
        std::lock_guard<std::mutex> lock(mu);
        all.merge(local);
      });
    }
    o.checks.push_back(all.finish());
    o.status = "pass";
    for (const auto& ch : o.checks)
      if (!ch.pass()) o.status = "fail";
    return o;
  }
};

Runner::Runner(uint64_t master_seed, RunnerOptions opt) : impl_(std::make_unique<Impl>(master_seed, opt)) {}
Runner::~Runner() = default;

std::string Runner::device_description() const {
  const cudaDeviceProp& p = impl_->prop;
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.multiProcessorCount) + " SMs, " + std::to_string(p.totalGlobalMem >> 30) + " GiB, L2 " +
         std::to_string(p.l2CacheSize >> 20) + " MiB)";
}

CaseOutcome Runner::run(const CaseSpec& c) {
  const std::string skip = skip_reason(c, !impl_->opt.cublas);
  if (!skip.empty()) {
    CaseOutcome o;
    o.spec = c;
    o.status = "skipped";
    o.message = skip;
    return o;
  }
  const auto t0 = std::chrono::steady_clock::now();
  CaseOutcome o = c.family == Family::dequant ? impl_->run_dequant(c) : impl_->run_gemm(c);
  o.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return o;
}

Runner::Timing Runner::time_case(const CaseSpec& c, int warmup, int iters) {
  Impl& m = *impl_;
  if (!m.opt.cublas) throw Error("--time needs cuBLAS (its baseline); it cannot run with --no-cublas");
  Timing t;
  t.outcome = run(c);
  if (t.outcome.status != "pass") return t;
  // Rotate copies of the packed weights (and of the fp16 W' for cuBLAS) past 4x L2 when memory
  // allows (at most 4 GiB per set and 64 copies); otherwise the weights are hot in L2 if they fit.
  const size_t l2 = size_t(m.prop.l2CacheSize);
  const size_t kb_bytes = m.w_real.packed.size() * 4 + m.w_real.absmax.size();
  const size_t fp_bytes = size_t(m.w_real.E * m.w_real.N * m.w_real.K) * 2;
  auto copies_for = [&](size_t bytes) {
    size_t n = std::max<size_t>(1, (4 * l2 + bytes - 1) / std::max<size_t>(bytes, 1));
    n = std::min<size_t>(n, 64);
    while (n > 1 && n * bytes > (size_t(4) << 30)) --n;
    return n;
  };
  const size_t nk = copies_for(kb_bytes), nf = copies_for(fp_bytes);
  std::vector<std::unique_ptr<DevMem>> kcopies, fcopies;
  std::vector<TiledView> views;
  for (size_t i = 0; i < nk; ++i) {
    if (i == 0) {
      views.push_back(m.d_real.view);
      continue;
    }
    auto p = std::make_unique<DevMem>();
    auto q = std::make_unique<DevMem>();
    p->resize(m.w_real.packed.size() * 4);
    q->resize(m.w_real.absmax.size());
    cuda_ok(cudaMemcpy(p->data(), m.d_real.packed.data(), p->bytes, cudaMemcpyDeviceToDevice), "copy weights");
    cuda_ok(cudaMemcpy(q->data(), m.d_real.absmax.data(), q->bytes, cudaMemcpyDeviceToDevice), "copy weights");
    TiledView v = m.d_real.view;
    v.packed = p->as<uint32_t>();
    v.absmax = q->as<uint8_t>();
    views.push_back(v);
    kcopies.push_back(std::move(p));
    kcopies.push_back(std::move(q));
  }
  std::vector<const void*> wf = {m.w_act.data()};
  for (size_t i = 1; i < nf; ++i) {
    auto p = std::make_unique<DevMem>();
    p->resize(fp_bytes);
    cuda_ok(cudaMemcpy(p->data(), m.w_act.data(), fp_bytes, cudaMemcpyDeviceToDevice), "copy W'");
    wf.push_back(p->data());
    fcopies.push_back(std::move(p));
  }
  char label[160];
  std::snprintf(label, sizeof label, "kbit %s: %zu cop%s (%.1f MB each), cuBLAS %zu cop%s (%.1f MB each), L2 %.0f MB",
                nk > 1 ? "cold" : (kb_bytes < l2 ? "hot" : "cold"), nk, nk > 1 ? "ies" : "y", kb_bytes / 1e6,
                nf, nf > 1 ? "ies" : "y", fp_bytes / 1e6, l2 / 1e6);
  t.rotation = label;

  cudaEvent_t e0, e1;
  cuda_ok(cudaEventCreate(&e0), "event");
  cuda_ok(cudaEventCreate(&e1), "event");
  auto median_us = [&](auto&& launch_i) {
    for (int i = 0; i < warmup; ++i) launch_i(i);
    std::vector<float> ms;
    for (int i = 0; i < iters; ++i) {
      cuda_ok(cudaEventRecord(e0, m.stream), "event");
      launch_i(warmup + i);
      cuda_ok(cudaEventRecord(e1, m.stream), "event");
      cuda_ok(cudaEventSynchronize(e1), "event");
      float x = 0;
      cuda_ok(cudaEventElapsedTime(&x, e0, e1), "event");
      ms.push_back(x);
    }
    std::sort(ms.begin(), ms.end());
    return ms.empty() ? 0.0 : 1000.0 * ms[ms.size() / 2];
  };
  const gpu::Act act = act_of(c.dtype);
  size_t wsb = c.family == Family::dense ? gpu::linear_workspace_bytes(m.rows, m.d_real.view, act, dense_kernel(c.kernel))
                                         : gpu::moe_linear_workspace_bytes(m.rows, m.d_real.view, act, moe_kernel(c.kernel));
  m.ws.resize(wsb);
  if (wsb) cuda_ok(cudaMemsetAsync(m.ws.data(), 0, wsb, m.stream), "zero workspace");  // gpu.h contract
  m.C.resize(size_t(m.rows * m.N) * 2);
  t.kbit_us = median_us([&](int i) {
    const TiledView& w = views[size_t(i) % views.size()];
    gpu::Status s;
    if (c.family == Family::dense) {
      gpu::LinearArgs a;
      a.A = m.dA.data(), a.C = m.C.data(), a.M = m.rows, a.act = act, a.w = w, a.kernel = dense_kernel(c.kernel);
      a.workspace = wsb ? m.ws.data() : nullptr, a.workspace_bytes = wsb, a.cublas = m.cublas, a.stream = m.stream;
      a.pdl = m.opt.pdl;
      s = gpu::linear(a);
    } else {
      gpu::MoeArgs a;
      a.A = m.dA.data(), a.C = m.C.data(), a.expert_offsets = m.d_offsets.as<int32_t>(), a.total_rows = m.rows;
      a.act = act, a.w = w, a.kernel = moe_kernel(c.kernel), a.max_rows_per_expert_hint = int(m.plan.max_rows);
      a.workspace = wsb ? m.ws.data() : nullptr, a.workspace_bytes = wsb, a.stream = m.stream;
      a.pdl = m.opt.pdl;
      s = gpu::moe_linear(a);
    }
    if (s != gpu::Status::ok) throw CudaFailure(std::string("timed launch returned ") + gpu::status_name(s));
  });
  m.baseline_math = true;
  t.cublas_us = median_us([&](int i) {
    m.gemm_nt(m.dA.data(), wf[size_t(i) % wf.size()], m.d_tmp.data(), c.dtype, c.dtype, false);
  });
  m.baseline_math = false;
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return t;
}

}  // namespace kbit::verify
