// kbit-bench's GPU runner. See docs/kbit-bench.md for the method this implements.
#include "gpu_runner.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>

#include "compare.h"
#include "kbit/gpu.h"
#include "kbit/parallel.h"
#include "routing.h"
#include "tolerance.h"
#include "weights.h"

namespace kbit::bench {

cudaError_t read_sum(const void* p, size_t bytes, unsigned* out, int sms, cudaStream_t s);                // device.cu
cudaError_t map_to_f32(const void* in, float* out, int64_t n, int type, int mode, cudaStream_t s);  // device.cu

namespace {
using verify::Precision;

void ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e));
}
void ok(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(int(s)));
}

struct Buf {
  void* p = nullptr;
  size_t n = 0;
  Buf() = default;
  explicit Buf(size_t bytes) { resize(bytes); }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  ~Buf() { if (p) cudaFree(p); }
  void resize(size_t bytes) {
    if (bytes <= n && p) return;
    if (p) cudaFree(p);
    p = nullptr;
    ok(cudaMalloc(&p, std::max<size_t>(bytes, 16)), "cudaMalloc");
    n = bytes;
  }
  template <class T>
  T* as() const { return static_cast<T*>(p); }
};

gpu::Kernel dense_kernel(const std::string& name) {
  const std::string k = kernel_of(name);  // the launch mode (_pdl) is not part of the kernel
  return k == "v0" ? gpu::Kernel::v0 : k == "gemv" ? gpu::Kernel::gemv : k == "mma" ? gpu::Kernel::mma
       : k == "tcv" ? gpu::Kernel::tcv : k == "tcw" ? gpu::Kernel::tcw
       : k == "dequant_cublas" ? gpu::Kernel::dequant_cublas : gpu::Kernel::automatic;
}
gpu::MoeKernel moe_kernel(const std::string& name) {
  const std::string k = kernel_of(name);  // the launch mode (_pdl) is not part of the kernel
  return k == "v0" ? gpu::MoeKernel::v0 : k == "grouped_gemv" ? gpu::MoeKernel::grouped_gemv
       : k == "grouped_mma" ? gpu::MoeKernel::grouped_mma
       : k == "grouped_tcv" ? gpu::MoeKernel::grouped_tcv
       : k == "grouped_tcw" ? gpu::MoeKernel::grouped_tcw : gpu::MoeKernel::automatic;
}
Precision prec(const std::string& d) { return d == "bf16" ? Precision::bf16 : Precision::f16; }
cudaDataType ctype(Precision p) { return p == Precision::bf16 ? CUDA_R_16BF : p == Precision::f32 ? CUDA_R_32F : CUDA_R_16F; }
}  // namespace

bool gpu_available(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why) *why = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device";
    return false;
  }
  return true;
}

struct GpuBench::Impl {
  GpuOptions o;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  Buf cublas_ws{size_t(64) << 20};
  cudaDeviceProp prop{};

  // Weights of (shape, bits): kbit bytes plus copies; W' in f16, bf16 and f32 (|W'|, W'^2 too).
  std::string wkey;
  verify::HostWeights hw;
  std::vector<std::unique_ptr<Buf>> packed, absmax;  // copies; [0] is the original
  Buf cb, wf16, wbf16, w32, wabs, wsq;
  std::vector<std::unique_ptr<Buf>> fcopies[2];      // extra copies of wf16 [0] / wbf16 [1] (baselines)
  // Shape and M: routings (one per rotation shift), activations.
  std::string mkey;
  int64_t rows = 0;
  std::vector<verify::RoutingPlan> plans;  // [0]: the verified routing; others: shifted for rotation
  Buf offsets;                             // all plans' offsets (int32), E + 1 each
  Buf a16, abf, a32, aabs, asq, C, ref, S, Q, ws;
  std::vector<float> sa;                   // sum |a| per row
  std::map<std::string, std::vector<float>> refs;  // dtype -> host R|S|Q (3 * rows * N)

  const verify::GemmShape* shape = nullptr;

  void ensure_weights(const verify::GemmShape& s, int bits) {
    const std::string k = s.label() + "|" + std::to_string(bits);
    if (k == wkey) return;
    wkey.clear();
    mkey.clear();
    refs.clear();
    packed.clear();
    absmax.clear();
    fcopies[0].clear();
    fcopies[1].clear();
    hw = verify::make_random_weights(bits, s.E, s.N, s.K, verify::derive_seed(o.seed, k), o.threads);
    packed.push_back(std::make_unique<Buf>(hw.packed.size() * 4));
    absmax.push_back(std::make_unique<Buf>(hw.absmax.size()));
    ok(cudaMemcpy(packed[0]->p, hw.packed.data(), hw.packed.size() * 4, cudaMemcpyHostToDevice), "upload");
    ok(cudaMemcpy(absmax[0]->p, hw.absmax.data(), hw.absmax.size(), cudaMemcpyHostToDevice), "upload");
    cb.resize(hw.codebook.size() * 4);
    ok(cudaMemcpy(cb.p, hw.codebook.data(), hw.codebook.size() * 4, cudaMemcpyHostToDevice), "upload");
    const size_t nw = size_t(s.E * s.N * s.K);
    wf16.resize(nw * 2), wbf16.resize(nw * 2), w32.resize(nw * 4), wabs.resize(nw * 4), wsq.resize(nw * 4);
    const TiledView v = view(0);
    if (gpu::dequantize(v, wf16.p, gpu::OutType::f16, stream) != gpu::Status::ok ||
        gpu::dequantize(v, wbf16.p, gpu::OutType::bf16, stream) != gpu::Status::ok ||
        gpu::dequantize(v, w32.p, gpu::OutType::f32, stream) != gpu::Status::ok)
      throw std::runtime_error(std::string("dequantize: ") + gpu::status_message());
    ok(map_to_f32(w32.p, wabs.as<float>(), int64_t(nw), 2, 1, stream), "abs");
    ok(map_to_f32(w32.p, wsq.as<float>(), int64_t(nw), 2, 2, stream), "square");
    ok(cudaStreamSynchronize(stream), "sync");
    wkey = k;
    shape = &s;
  }
  TiledView view(size_t copy) const {
    TiledView v = hw.view();  // shape and half_cb; device pointers below
    v.packed = packed[copy]->as<uint32_t>();
    v.absmax = absmax[copy]->as<uint8_t>();
    v.codebook = cb.as<float>();
    return v;
  }
  size_t kbit_bytes() const { return hw.packed.size() * 4 + hw.absmax.size(); }
  // Launches (or weight copies) for one rotation to read > 4x L2 at this many bytes each; 1 hot.
  size_t rotation_length(double bytes_each) const {
    if (o.hot) return 1;
    return std::max<size_t>(1, size_t(std::ceil(4 * double(prop.l2CacheSize) / std::max(bytes_each, 1.0))));
  }
  // `want` copies of a set of `set_bytes`, capped by the copy budget (the row's note says so).
  size_t capped_copies(size_t want, double set_bytes, const char* what, std::string* note) const {
    const size_t cap = std::max<size_t>(1, size_t(double(o.copy_budget_bytes) / std::max(set_bytes, 1.0)));
    if (want <= cap) return want;
    *note += std::string(what) + " copies capped at " + std::to_string(cap) + " by the memory budget (rotation < 4x L2); ";
    return cap;
  }
  // Copies of the kbit weights so that one rotation reads > 4x L2.
  size_t ensure_copies(double bytes_per_launch, double set_bytes, std::string* note) {
    const size_t want = capped_copies(rotation_length(bytes_per_launch), set_bytes, "kbit weight", note);
    while (packed.size() < want) {
      packed.push_back(std::make_unique<Buf>(hw.packed.size() * 4));
      absmax.push_back(std::make_unique<Buf>(hw.absmax.size()));
      ok(cudaMemcpy(packed.back()->p, packed[0]->p, hw.packed.size() * 4, cudaMemcpyDeviceToDevice), "copy");
      ok(cudaMemcpy(absmax.back()->p, absmax[0]->p, hw.absmax.size(), cudaMemcpyDeviceToDevice), "copy");
    }
    return want;
  }

  // The dense fp16/bf16 weight and copies of it, rotated like the kbit rows.
  std::vector<const void*> baseline_weights(Precision p, double weight_bytes, std::string* note) {
    const Buf& w0 = p == Precision::bf16 ? wbf16 : wf16;
    const size_t want = capped_copies(rotation_length(weight_bytes), weight_bytes, "fp16 weight", note);
    auto& v = fcopies[p == Precision::bf16 ? 1 : 0];
    const size_t bytes = size_t(weight_bytes);
    while (v.size() + 1 < want) {
      v.push_back(std::make_unique<Buf>(bytes));
      ok(cudaMemcpy(v.back()->p, w0.p, bytes, cudaMemcpyDeviceToDevice), "copy fp16 weights");
    }
    std::vector<const void*> out{w0.p};
    for (size_t i = 0; i + 1 < want; ++i) out.push_back(v[i]->p);
    return out;
  }

  // Launches per graph for one rotation pass, at most the distinct (copy, routing) combinations.
  size_t launches_for(double bytes_per_launch, size_t available) const {
    return std::min(rotation_length(bytes_per_launch), std::max<size_t>(1, available));
  }

  void ensure_m(const verify::GemmShape& s, int64_t M) {
    const std::string k = wkey + "|" + std::to_string(M);
    if (k == mkey) return;
    refs.clear();
    plans.clear();
    if (s.moe) {
      const verify::RoutingPlan p0 = verify::make_routing(verify::Routing::realistic, M, s.top_k, s.E,
                                                          verify::derive_seed(o.seed, s.label() + ".route." + std::to_string(M)));
      // Rotation shifts: the same per-expert row counts moved to other experts (cyclic shift), so
      // the work is identical and consecutive launches read different experts' weights.
      const int64_t shifts = o.hot ? 1 : std::min<int64_t>(s.E, 64);
      for (int64_t sh = 0; sh < shifts; ++sh) {
        std::vector<int64_t> counts(size_t(s.E));
        const int64_t step = sh * std::max<int64_t>(1, s.E / shifts);
        for (int64_t e = 0; e < s.E; ++e) counts[size_t((e + step) % s.E)] = p0.rows_of(e);
        plans.push_back(verify::plan_from_counts(counts));
      }
    } else {
      plans.push_back(verify::plan_from_counts({M}));
    }
    rows = plans[0].total_rows;
    std::vector<int32_t> off;
    for (const auto& p : plans)
      for (int64_t x : p.offsets) off.push_back(int32_t(x));
    offsets.resize(off.size() * 4);
    ok(cudaMemcpy(offsets.p, off.data(), off.size() * 4, cudaMemcpyHostToDevice), "upload offsets");
    const int64_t n = rows * s.K;
    a16.resize(size_t(n) * 2), abf.resize(size_t(n) * 2), a32.resize(size_t(n) * 4), aabs.resize(size_t(n) * 4),
        asq.resize(size_t(n) * 4);
    C.resize(size_t(rows * s.N) * 4), ref.resize(size_t(rows * s.N) * 4), S.resize(size_t(rows * s.N) * 4),
        Q.resize(size_t(rows * s.N) * 4);
    mkey = k;
  }
  // Activations of dtype p in a16/abf and their fp32 maps (|a|, a^2) for the reference.
  void upload_activations(Precision p) {
    const int64_t K = shape->K;
    const std::vector<float> a = verify::make_activations(rows, K, p, verify::derive_seed(o.seed, mkey + "|A"), o.threads);
    std::vector<uint16_t> h(a.size());
    for (size_t i = 0; i < a.size(); ++i) h[i] = verify::bits_of(p, a[i]);
    Buf& dst = p == Precision::bf16 ? abf : a16;
    if (!h.empty()) ok(cudaMemcpy(dst.p, h.data(), h.size() * 2, cudaMemcpyHostToDevice), "upload A");
    const int t = p == Precision::bf16 ? 1 : 0;
    ok(map_to_f32(dst.p, a32.as<float>(), int64_t(a.size()), t, 0, stream), "A f32");
    ok(map_to_f32(dst.p, aabs.as<float>(), int64_t(a.size()), t, 1, stream), "A abs");
    ok(map_to_f32(dst.p, asq.as<float>(), int64_t(a.size()), t, 2, stream), "A sq");
    sa.assign(size_t(rows), 0.0f);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < K; ++k) sa[size_t(r)] += std::fabs(a[size_t(r * K + k)]);
  }

  // C[rows, N] = A W^T per expert of plan (row-major; cuBLAS column-major trick as kbit-verify).
  void gemm_experts(const verify::RoutingPlan& plan, const void* A, const void* W, void* Cp, Precision at, Precision ct,
                    bool reference) {
    const float one = 1.0f, zero = 0.0f;
    ok(cublasSetMathMode(cublas, reference ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH), "math mode");
    const int64_t N = shape->N, K = shape->K;
    const size_t ab = at == Precision::f32 ? 4 : 2, cbytes = ct == Precision::f32 ? 4 : 2;
    for (int64_t e = 0; e + 1 < int64_t(plan.offsets.size()); ++e) {
      const int64_t r0 = plan.offsets[size_t(e)], n = plan.rows_of(e);
      if (n == 0) continue;
      ok(cublasGemmEx(cublas, CUBLAS_OP_T, CUBLAS_OP_N, int(N), int(n), int(K), &one,
                      static_cast<const char*>(W) + size_t(e * N * K) * ab, ctype(at), int(K),
                      static_cast<const char*>(A) + size_t(r0 * K) * ab, ctype(at), int(K), &zero,
                      static_cast<char*>(Cp) + size_t(r0 * N) * cbytes, ctype(ct), int(N), CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT),
         "cublasGemmEx");
    }
  }

  // The fp32 reference R, S = |A||W'|^T, Q = A^2 W'^2^T for dtype d (cached per shape, bits, M, dtype).
  const std::vector<float>& reference(const std::string& d) {
    auto it = refs.find(d);
    if (it != refs.end()) return it->second;
    upload_activations(prec(d));
    gemm_experts(plans[0], a32.p, w32.p, ref.p, Precision::f32, Precision::f32, true);
    gemm_experts(plans[0], aabs.p, wabs.p, S.p, Precision::f32, Precision::f32, true);
    gemm_experts(plans[0], asq.p, wsq.p, Q.p, Precision::f32, Precision::f32, true);
    const size_t n = size_t(rows * shape->N);
    std::vector<float> h(3 * n);
    ok(cudaMemcpy(h.data(), ref.p, n * 4, cudaMemcpyDeviceToHost), "download");
    ok(cudaMemcpy(h.data() + n, S.p, n * 4, cudaMemcpyDeviceToHost), "download");
    ok(cudaMemcpy(h.data() + 2 * n, Q.p, n * 4, cudaMemcpyDeviceToHost), "download");
    return refs[d] = std::move(h);
  }

  // Compare C (dtype d, rows x N) with the reference: tolerance.h's cuBLAS-comparison gate.
  verify::CheckResult check(const std::string& d) {
    const std::vector<float>& h = reference(d);
    const Precision p = prec(d);
    const int64_t N = shape->N;
    const size_t n = size_t(rows * N);
    std::vector<uint16_t> c(n);
    if (n) ok(cudaMemcpy(c.data(), C.p, n * 2, cudaMemcpyDeviceToHost), "download C");
    const verify::Tolerance tol = verify::Tolerance::derive(p, shape->K);
    verify::Checker total("cublas_f32_ref", false);
    std::mutex mu;
    parallel_for(rows, o.threads, [&](int64_t r0, int64_t r1) {
      verify::Checker local("cublas_f32_ref", false);
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t j = 0; j < N; ++j) {
          const size_t i = size_t(r * N + j);
          const double R = h[i], Sv = h[n + i], Qv = h[2 * n + i];
          local.add(r, j, verify::from_bits(p, c[i]), R, 2.0 * tol.elem(std::fabs(R), Sv, sa[size_t(r)]),
                    tol.variance(std::fabs(R), Sv, Qv, sa[size_t(r)]));
        }
      std::lock_guard<std::mutex> lock(mu);
      total.merge(local);
    });
    return total.finish(4.0);
  }

  // Time launch(i) for i in [0, launches) captured into one graph; per-launch µs per replay.
  Stats time_graph(const std::function<void(size_t)>& launch, size_t min_launches, int* launches_out) {
    cudaEvent_t e0, e1;
    ok(cudaEventCreate(&e0), "event");
    ok(cudaEventCreate(&e1), "event");
    // Probe: a few single launches to size the graph.
    for (int i = 0; i < 2; ++i) launch(size_t(i));
    std::vector<double> probe;
    for (int i = 0; i < 3; ++i) {
      ok(cudaEventRecord(e0, stream), "event");
      launch(size_t(i));
      ok(cudaEventRecord(e1, stream), "event");
      ok(cudaEventSynchronize(e1), "event");
      float ms = 0;
      ok(cudaEventElapsedTime(&ms, e0, e1), "event");
      probe.push_back(1000.0 * ms);
    }
    const double pus = std::max(1.0, stats_of(probe).median);
    size_t n = std::max<size_t>({min_launches, 8, size_t(std::ceil(o.target_replay_us / pus))});
    n = std::min<size_t>(n, std::max<size_t>(min_launches, 4096));
    cudaGraph_t g = nullptr;
    cudaGraphExec_t ge = nullptr;
    ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "begin capture");
    try {
      for (size_t i = 0; i < n; ++i) launch(i);
    } catch (...) {
      cudaStreamEndCapture(stream, &g);
      if (g) cudaGraphDestroy(g);
      cudaEventDestroy(e0), cudaEventDestroy(e1);
      throw;
    }
    ok(cudaStreamEndCapture(stream, &g), "end capture");
    ok(cudaGraphInstantiate(&ge, g, 0), "instantiate");
    ok(cudaGraphUpload(ge, stream), "upload graph");
    ok(cudaGraphLaunch(ge, stream), "warm-up replay");
    std::vector<double> per;
    for (int r = 0; r < o.replays; ++r) {
      ok(cudaEventRecord(e0, stream), "event");
      ok(cudaGraphLaunch(ge, stream), "replay");
      ok(cudaEventRecord(e1, stream), "event");
      ok(cudaEventSynchronize(e1), "event");
      float ms = 0;
      ok(cudaEventElapsedTime(&ms, e0, e1), "event");
      per.push_back(1000.0 * ms / double(n));
    }
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    *launches_out = int(n);
    return stats_of(per);
  }
};

GpuBench::GpuBench(GpuOptions o) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.o = std::move(o);
  ok(cudaGetDeviceProperties(&m.prop, 0), "cudaGetDeviceProperties");
  ok(cudaStreamCreate(&m.stream), "stream");  // blocking stream (kbit-verify's lesson)
  ok(cublasCreate(&m.cublas), "cublasCreate");
  ok(cublasSetStream(m.cublas, m.stream), "cublasSetStream");
  // An explicit workspace so cuBLAS allocates nothing during graph capture.
  ok(cublasSetWorkspace(m.cublas, m.cublas_ws.p, m.cublas_ws.n), "cublasSetWorkspace");
  // Copies must leave room for everything else: at most a third of the free memory.
  size_t freeb = 0, totalb = 0;
  ok(cudaMemGetInfo(&freeb, &totalb), "cudaMemGetInfo");
  m.o.copy_budget_bytes = std::min<int64_t>(m.o.copy_budget_bytes, int64_t(freeb / 3));
}

GpuBench::~GpuBench() {
  if (impl_->cublas) cublasDestroy(impl_->cublas);
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

RunInfo GpuBench::device_info() const {
  const Impl& m = *impl_;
  RunInfo i;
  i.device = m.prop.name;
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  i.driver = "CUDA driver API " + std::to_string(drv / 1000) + "." + std::to_string(drv % 1000 / 10);
  i.cuda_runtime = std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10);
  int sm = 0, mem = 0;
  cudaDeviceGetAttribute(&sm, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&mem, cudaDevAttrMemoryClockRate, 0);
  i.sm_clock_mhz = sm / 1000;
  i.mem_clock_mhz = mem / 1000;
  i.l2_bytes = m.prop.l2CacheSize;
  i.hot = m.o.hot;
  i.replays = m.o.replays;
  return i;
}

double GpuBench::measure_read_gbps() {
  Impl& m = *impl_;
  size_t freeb = 0, totalb = 0;
  ok(cudaMemGetInfo(&freeb, &totalb), "cudaMemGetInfo");
  const size_t bytes = std::min<size_t>(size_t(2) << 30, freeb / 4) & ~size_t(4095);
  Buf buf(bytes), out(16);
  ok(cudaMemsetAsync(buf.p, 1, bytes, m.stream), "memset");
  ok(cudaMemsetAsync(out.p, 0, 16, m.stream), "memset");
  int launches = 0;
  const Stats s = m.time_graph(
      [&](size_t) { ok(read_sum(buf.p, bytes, out.as<unsigned>(), m.prop.multiProcessorCount, m.stream), "read_sum"); },
      1, &launches);
  return double(bytes) / (s.median * 1e-6) / 1e9;
}

Row GpuBench::run(const PlannedCase& c) {
  Impl& m = *impl_;
  const verify::GemmShape& s = *c.shape;
  Row r;
  r.model = s.model, r.shape = s.name, r.moe = s.moe, r.N = s.N, r.K = s.K, r.E = s.E, r.top_k = s.top_k, r.M = c.M;
  r.bits = c.bits, r.dtype = c.dtype, r.kernel = c.kernel, r.hot = m.o.hot;
  r.kind = c.bits == 0 ? "baseline" : "kbit";
  try {
    m.ensure_weights(s, c.bits ? c.bits : (m.o.bits.empty() ? 4 : m.o.bits[0]));
    m.ensure_m(s, c.M);
    r.rows = m.rows;
    r.active_experts = s.moe ? m.plans[0].active_experts : 1;
    const Traffic t = traffic(s.N, s.K, c.bits, r.active_experts, m.rows);
    r.bytes = t.bytes();
    r.flop = flops(s.N, s.K, m.rows);
    const Precision p = prec(c.dtype);
    const gpu::Act act = p == Precision::bf16 ? gpu::Act::bf16 : gpu::Act::f16;
    const size_t nplans = m.plans.size();
    std::function<void(size_t)> launch;
    size_t min_launches = 1;
    if (r.kind == "baseline") {
      r.verify = "ref";
      (void)m.reference(c.dtype);  // uploads this dtype's activations (the kbit rows use the same)
      const void* W = p == Precision::bf16 ? m.wbf16.p : m.wf16.p;
      const void* A = p == Precision::bf16 ? m.abf.p : m.a16.p;
      r.copies = 1;
      // MoE: the shifted routings read other experts; count only their union per launch.
      const double fp_set = double(s.E * s.N * s.K) * 2;
      const double fp_per_launch = std::min(fp_set, t.weight_bytes * double(nplans)) / double(nplans);
      if (c.kernel == "cublas_f16" || c.kernel == "cublas_bf16") {
        // Rotated copies of the fp16/bf16 weight, as cold as the kbit rows (dense shapes only).
        const std::vector<const void*> ws = m.baseline_weights(p, t.weight_bytes, &r.note);
        r.copies = int(ws.size());
        min_launches = ws.size();
        launch = [&, A, ws](size_t i) {
          const float one = 1, zero = 0;
          ok(cublasGemmEx(m.cublas, CUBLAS_OP_T, CUBLAS_OP_N, int(s.N), int(m.rows), int(s.K), &one, ws[i % ws.size()],
                          ctype(p), int(s.K), A, ctype(p), int(s.K), &zero, m.C.p, ctype(p), int(s.N),
                          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
             "cublasGemmEx");
        };
        ok(cublasSetMathMode(m.cublas, CUBLAS_DEFAULT_MATH), "math");
      } else if (c.kernel == "cublas_loop_f16") {
        min_launches = m.launches_for(fp_per_launch, nplans);
        launch = [&, A, W](size_t i) { m.gemm_experts(m.plans[i % nplans], A, W, m.C.p, p, p, false); };
      } else {  // cublas_grouped_f16: cublasGemmGroupedBatchedEx, one group per active expert
        struct G {
          std::vector<cublasOperation_t> ta, tb;
          std::vector<int> mm, nn, kk, lda, ldb, ldc, size;
          std::vector<float> alpha, beta;
          int groups = 0;
        };
        auto gs = std::make_shared<std::vector<G>>(nplans);
        std::vector<const void*> hp;  // per plan: A ptrs, B ptrs, C ptrs (device arrays below)
        std::vector<size_t> base(nplans);
        for (size_t i = 0; i < nplans; ++i) {
          G& g = (*gs)[i];
          std::vector<const void*> wa, aa, cc;
          for (int64_t e = 0; e < s.E; ++e) {
            const int64_t n = m.plans[i].rows_of(e);
            if (!n) continue;
            g.ta.push_back(CUBLAS_OP_T), g.tb.push_back(CUBLAS_OP_N);
            g.mm.push_back(int(s.N)), g.nn.push_back(int(n)), g.kk.push_back(int(s.K));
            g.lda.push_back(int(s.K)), g.ldb.push_back(int(s.K)), g.ldc.push_back(int(s.N)), g.size.push_back(1);
            g.alpha.push_back(1), g.beta.push_back(0);
            wa.push_back(static_cast<const char*>(W) + size_t(e * s.N * s.K) * 2);
            aa.push_back(static_cast<const char*>(A) + size_t(m.plans[i].offsets[size_t(e)] * s.K) * 2);
            cc.push_back(static_cast<char*>(m.C.p) + size_t(m.plans[i].offsets[size_t(e)] * s.N) * 2);
          }
          g.groups = int(g.mm.size());
          base[i] = hp.size();
          hp.insert(hp.end(), wa.begin(), wa.end());
          hp.insert(hp.end(), aa.begin(), aa.end());
          hp.insert(hp.end(), cc.begin(), cc.end());
        }
        auto ptrs = std::make_shared<Buf>(std::max<size_t>(hp.size(), 1) * sizeof(void*));
        ok(cudaMemcpy(ptrs->p, hp.data(), hp.size() * sizeof(void*), cudaMemcpyHostToDevice), "upload ptrs");
        min_launches = m.launches_for(fp_per_launch, nplans);
        ok(cublasSetMathMode(m.cublas, CUBLAS_DEFAULT_MATH), "math");
        launch = [&, gs, ptrs, base](size_t i) {
          const G& g = (*gs)[i % nplans];
          if (!g.groups) return;
          void** d = ptrs->as<void*>() + base[i % nplans];
          ok(cublasGemmGroupedBatchedEx(m.cublas, g.ta.data(), g.tb.data(), g.mm.data(), g.nn.data(), g.kk.data(),
                                        g.alpha.data(), const_cast<const void* const*>(d), ctype(p), g.lda.data(),
                                        const_cast<const void* const*>(d + g.groups), ctype(p), g.ldb.data(),
                                        g.beta.data(), d + 2 * g.groups, ctype(p), g.ldc.data(), g.groups,
                                        g.size.data(), CUBLAS_COMPUTE_32F),
             "cublasGemmGroupedBatchedEx");
        };
        int launches = 0;
        r.us = m.time_graph(launch, min_launches, &launches);
        r.launches = launches;
        return r;
      }
      int launches = 0;
      r.us = m.time_graph(launch, min_launches, &launches);
      r.launches = launches;
      return r;
    }

    // kbit kernels: the reference for this dtype uploads the activations of dtype p.
    (void)m.reference(c.dtype);
    const void* A = p == Precision::bf16 ? m.abf.p : m.a16.p;
    const bool dense = !s.moe;
    const double active_bytes = double(m.kbit_bytes()) / double(s.E) * double(r.active_experts);
    // MoE: shifted routings already spread launches over other experts; count their union.
    double per_launch = active_bytes;
    if (!dense && nplans > 1) per_launch = std::min(double(m.kbit_bytes()), active_bytes * double(nplans)) / double(nplans);
    const size_t copies = m.ensure_copies(per_launch, double(m.kbit_bytes()), &r.note);
    r.copies = int(copies);
    size_t wsb = dense ? gpu::linear_workspace_bytes(m.rows, m.view(0), act, dense_kernel(c.kernel))
                       : gpu::moe_linear_workspace_bytes(m.rows, m.view(0), act, moe_kernel(c.kernel));
    m.ws.resize(wsb);
    if (wsb) ok(cudaMemsetAsync(m.ws.p, 0, wsb, m.stream), "zero workspace");  // gpu.h contract
    const bool pdl = is_launch_mode_row(r);  // automatic_pdl, gemv_pdl, ..., grouped_tcv_pdl, ...
    const bool automatic = kernel_of(c.kernel) == "automatic";
    if (dense && automatic) r.dispatch = gpu::kernel_name(gpu::choose_kernel(m.rows, m.view(0), act, true, pdl));
    if (!dense && automatic)
      r.dispatch = gpu::moe_kernel_name(gpu::choose_moe_kernel(m.rows, m.view(0), act, int(m.plans[0].max_rows)));
    auto call = [&, A, wsb, copies, nplans](size_t i) -> gpu::Status {
      const TiledView w = m.view(i % copies);
      if (dense) {
        gpu::LinearArgs a;
        a.A = A, a.C = m.C.p, a.M = m.rows, a.act = act, a.w = w, a.kernel = dense_kernel(c.kernel);
        a.workspace = wsb ? m.ws.p : nullptr, a.workspace_bytes = wsb, a.cublas = m.cublas, a.stream = m.stream;
        a.pdl = pdl;  // the weights are never written in the timed graph
        return gpu::linear(a);
      }
      const size_t pi = (i / copies) % nplans;  // every copy with every routing shift
      gpu::MoeArgs a;
      a.A = A, a.C = m.C.p, a.expert_offsets = m.offsets.as<int32_t>() + pi * size_t(s.E + 1), a.total_rows = m.rows;
      a.act = act, a.w = w, a.kernel = moe_kernel(c.kernel), a.max_rows_per_expert_hint = int(m.plans[pi].max_rows);
      a.workspace = wsb ? m.ws.p : nullptr, a.workspace_bytes = wsb, a.stream = m.stream;
      a.pdl = pdl;  // the weights and the routings are never written in the timed graph
      return gpu::moe_linear(a);
    };
    // Verify the exact launch (copy 0, routing 0) first.
    ok(cublasSetMathMode(m.cublas, CUBLAS_DEFAULT_MATH), "math");
    ok(cudaMemsetAsync(m.C.p, 0xFF, size_t(m.rows * s.N) * 2, m.stream), "poison C");
    const gpu::Status st = call(0);
    if (st == gpu::Status::bad_kernel) {
      r.verify = "n/a";
      r.note += gpu::status_message();
      return r;
    }
    if (st != gpu::Status::ok) {
      r.verify = "error";
      r.note += std::string(gpu::status_name(st)) + ": " + gpu::status_message();
      return r;
    }
    ok(cudaStreamSynchronize(m.stream), "sync");
    const verify::CheckResult chk = m.check(c.dtype);
    if (!chk.pass()) {
      r.verify = "FAIL";
      r.note += chk.summary();
      return r;
    }
    r.verify = "PASS";
    int launches = 0;
    r.us = m.time_graph(
        [&](size_t i) {
          const gpu::Status s2 = call(i);
          if (s2 != gpu::Status::ok) throw std::runtime_error(std::string("timed launch: ") + gpu::status_name(s2));
        },
        m.launches_for(per_launch, dense ? copies : copies * nplans), &launches);
    r.launches = launches;
  } catch (const std::exception& e) {
    r.verify = r.kind == "baseline" ? "error" : (r.verify == "PASS" ? "PASS" : "error");
    r.us = Stats{};
    r.note += e.what();
    cudaGetLastError();
  }
  return r;
}

}  // namespace kbit::bench
