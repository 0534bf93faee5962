// Every kernel family of kbit/gpu.h against the fp32 CPU reference, on the GPU:
//  - exact mode (reference/exact_mode.h): every output element bit for bit, for every dense and
//    MoE kernel, k = 2..5, fp16 and bf16, M across the gemv / mma / split-K / tail boundaries,
//    N and K tails (N = 1, 8, 130, 576; K % 64 == 32), MoE routings with empty experts and one
//    expert taking every row;
//  - random tiled bytes (every absmax code): dequantize bit for bit against dequantize_ref, and
//    the GEMMs by NMSE against a bound derived from the dtype rounding.
// Outputs are poisoned (all-ones bytes = NaN) before each launch. Skips (exit 77) without a GPU.
// kbit-verify (apps/kbit-verify) runs the large sweeps; this is the CI-sized core.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "kbit/dtype.h"
#include "kbit/gemv_sched.h"
#include "kbit/gpu.h"
#include "kbit/moe_sched.h"
#include "kbit/rng.h"
#include "kbit/tcw_sched.h"
#include "launch.h"  // gpu::detail::tcw_force_plan
#include "reference/dequantize.h"
#include "reference/exact_mode.h"
#include "reference/gemm.h"

using namespace kbit;
using gpu::Act;

namespace {

#define CUDA_REQUIRE(x) REQUIRE_MESSAGE((x) == cudaSuccess, #x)

template <class T>
struct DeviceBuf {
  T* p = nullptr;
  size_t n = 0;
  explicit DeviceBuf(size_t count) : n(count) { CUDA_REQUIRE(cudaMalloc(&p, std::max<size_t>(count, 1) * sizeof(T))); }
  DeviceBuf(const std::vector<T>& h) : DeviceBuf(h.size()) {
    CUDA_REQUIRE(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceBuf() { cudaFree(p); }
  DeviceBuf(const DeviceBuf&) = delete;
  std::vector<T> host() const {
    std::vector<T> h(n);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    CUDA_REQUIRE(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
  void poison() { CUDA_REQUIRE(cudaMemset(p, 0xff, std::max<size_t>(n, 1) * sizeof(T))); }
  void zero() { CUDA_REQUIRE(cudaMemset(p, 0, std::max<size_t>(n, 1) * sizeof(T))); }
};

struct DeviceWeights {
  DeviceBuf<uint32_t> packed;
  DeviceBuf<uint8_t> absmax;
  DeviceBuf<float> cb;
  TiledView view;
  explicit DeviceWeights(const QuantizedTensor& q) : packed(q.packed), absmax(q.absmax), cb(q.codebook_stored) {
    view = q.view();
    view.packed = packed.p;
    view.absmax = absmax.p;
    view.codebook = cb.p;
  }
};

uint16_t to_act(Act a, float x) { return a == Act::f16 ? f32_to_f16(x) : f32_to_bf16(x); }
float from_act(Act a, uint16_t x) { return a == Act::f16 ? f16_to_f32(x) : bf16_to_f32(x); }
const char* act_name(Act a) { return a == Act::f16 ? "f16" : "bf16"; }

std::vector<uint16_t> to_act(Act a, const std::vector<float>& x) {
  std::vector<uint16_t> r(x.size());
  for (size_t i = 0; i < x.size(); ++i) r[i] = to_act(a, x[i]);
  return r;
}

// Random tiled bytes: any index, absmax codes 0x60..0xBF (2^-5 .. ~2), an ascending codebook.
QuantizedTensor random_weights(int bits, int64_t E, int64_t N, int64_t K, uint64_t seed) {
  Rng rng(seed);
  QuantizedTensor q;
  q.bits = bits;
  q.E = E;
  q.N = N;
  q.K = K;
  q.packed.resize(size_t(E * tiled_words(N, K, bits)));
  q.absmax.resize(size_t(E * tiled_absmax_bytes(N, K)));
  for (auto& w : q.packed) w = uint32_t(rng.next());
  for (auto& a : q.absmax) a = uint8_t(0x60 + rng.below(0x60));
  // Pad blocks of K % 64 == 32 are zero on disk (FORMAT §5).
  if (k_blocks(K) % 2 == 1)
    for (int64_t e = 0; e < E; ++e)
      for (int64_t n = 0; n < N; ++n) {
        const int64_t kb = k_blocks(K);
        for (int b = 0; b < bits; ++b) q.packed[size_t(e * tiled_words(N, K, bits) + tiled_word_offset(n, kb, b, N, bits))] = 0;
        q.absmax[size_t(e * tiled_absmax_bytes(N, K) + tiled_absmax_offset(n, kb, N))] = 0;
      }
  q.codebook_stored.resize(size_t(1) << bits);
  float v = -1.0f;
  for (auto& c : q.codebook_stored) {
    c = v;
    v += 2.0f / float(q.codebook_stored.size()) * float(0.5 + rng.uniform());
  }
  return q;
}

// C = kernel(A) for a dense kernel; returns false (n/a) when the kernel rejects the case, which the
// API allows only for gemv above M = 4 and tcv above M = 16 (any other refusal fails the test here).
bool run_dense(gpu::Kernel kernel, Act act, const DeviceWeights& w, const std::vector<uint16_t>& A, int64_t M,
               std::vector<uint16_t>& C, cublasHandle_t cublas) {
  DeviceBuf<uint16_t> dA(A), dC(size_t(M * w.view.N));
  dC.poison();
  const size_t ws_bytes = gpu::linear_workspace_bytes(M, w.view, act, kernel);
  DeviceBuf<char> ws(ws_bytes);
  CUDA_REQUIRE(cudaMemset(ws.p, 0, std::max<size_t>(ws_bytes, 1)));
  gpu::LinearArgs a;
  a.A = dA.p;
  a.C = dC.p;
  a.M = M;
  a.act = act;
  a.w = w.view;
  a.kernel = kernel;
  a.workspace = ws.p;
  a.workspace_bytes = ws_bytes;
  a.cublas = cublas;
  const gpu::Status s = gpu::linear(a);
  if (s == gpu::Status::bad_kernel) {
    const bool allowed = (kernel == gpu::Kernel::gemv && M > 4) || (kernel == gpu::Kernel::tcv && M > 16) ||
                         (kernel == gpu::Kernel::tcw && !gpu::tcw_supported());
    CHECK_MESSAGE(allowed, std::string(gpu::kernel_name(kernel)), " refused M = ", M,
                  ": ", gpu::status_message());
    return false;
  }
  REQUIRE_MESSAGE(s == gpu::Status::ok, gpu::status_name(s), ": ", gpu::status_message());
  CUDA_REQUIRE(cudaGetLastError());
  C = dC.host();
  return true;
}

void run_moe(gpu::MoeKernel kernel, Act act, const DeviceWeights& w, const std::vector<uint16_t>& A,
             const std::vector<int64_t>& offsets, std::vector<uint16_t>& C, int max_rows_hint = 0) {
  const int64_t rows = offsets.back();
  std::vector<int32_t> off32(offsets.begin(), offsets.end());
  DeviceBuf<uint16_t> dA(A), dC(size_t(rows * w.view.N));
  DeviceBuf<int32_t> dOff(off32);
  dC.poison();
  gpu::MoeArgs a;
  a.A = dA.p;
  a.C = dC.p;
  a.expert_offsets = dOff.p;
  a.total_rows = rows;
  a.act = act;
  a.w = w.view;
  a.kernel = kernel;
  a.max_rows_per_expert_hint = max_rows_hint;
  const size_t wsb = gpu::moe_linear_workspace_bytes(rows, w.view, act, kernel);
  DeviceBuf<uint8_t> ws(wsb);
  a.workspace = wsb ? ws.p : nullptr;
  a.workspace_bytes = wsb;
  const gpu::Status s = gpu::moe_linear(a);
  REQUIRE_MESSAGE(s == gpu::Status::ok, gpu::status_name(s), ": ", gpu::status_message());
  CUDA_REQUIRE(cudaGetLastError());
  C = dC.host();
}

// An MoE case: E experts of N x K weights and the routed rows of each expert; the caller's
// MoeArgs::max_rows_per_expert_hint (0: none).
struct MoeCase {
  int64_t E, N, K;
  std::vector<int64_t> rows;
  int hint = 0;
};

// Exact-mode weights of c at k = bits (seed++), its expert offsets, exact activations of all its routed rows (seed++)
// and their CPU reference.
struct ExactMoe {
  QuantizedTensor q;
  DeviceWeights w;
  std::vector<int64_t> off;
  std::vector<float> A, ref;
  static std::vector<int64_t> offsets(const std::vector<int64_t>& rows) {
    std::vector<int64_t> off(1, 0);
    for (int64_t r : rows) off.push_back(off.back() + r);
    return off;
  }
  ExactMoe(int bits, const MoeCase& c, uint64_t& seed)
      : q(make_exact_weights(bits, c.E, c.N, c.K, seed++)),
        w(q),
        off(offsets(c.rows)),
        A(make_exact_activations(off.back(), c.K, seed++)),
        ref(size_t(off.back() * c.N)) {
    moe_gemm_ref(A.data(), off, q.view(), ref.data());
  }
};

// First element where got != want (bitwise), or -1.
int64_t first_mismatch(const std::vector<uint16_t>& got, const std::vector<uint16_t>& want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) return int64_t(i);
  return -1;
}

// KBIT_TEST_NO_CUBLAS=1: no handle, so no cuBLAS kernel runs and racecheck can run this binary
// unfiltered (it cannot model cuBLAS's TMA/mbarrier kernels, and with a kernel filter it dies at
// the first cuBLAS call). The dequant_cublas runs and automatic-with-a-handle runs are then skipped.
bool no_cublas() {
  const char* v = std::getenv("KBIT_TEST_NO_CUBLAS");
  const bool on = v && *v && std::string(v) != "0";
  static bool said = false;
  if (on && !said) {
    said = true;
    std::printf("KBIT_TEST_NO_CUBLAS is set: the dequant_cublas runs and automatic-with-a-handle runs are skipped\n");
  }
  return on;
}

struct CublasHandle {
  cublasHandle_t h = nullptr;
  CublasHandle() {
    if (!no_cublas()) REQUIRE(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS);
  }
  ~CublasHandle() {
    if (h) cublasDestroy(h);
  }
};

// A dense kernel and the cuBLAS handle it gets (null: none).
struct DenseRun {
  gpu::Kernel kernel;
  cublasHandle_t handle;
};

// For every k of bits_list, shape (N, K) of `shapes` and M of `Ms`: exact-mode weights (one seed of `seed` per shape)
// and activations (one per M) and their CPU reference, then fn(bits, N, K, w, M, act, A, want) in f16 and bf16, A and
// want in that type.
template <class F>
void for_each_exact_dense(const std::vector<int>& bits_list, const std::vector<std::pair<int64_t, int64_t>>& shapes,
                          const std::vector<int64_t>& Ms, uint64_t& seed, F&& fn) {
  for (int bits : bits_list)
    for (const auto& [N, K] : shapes) {
      const QuantizedTensor q = make_exact_weights(bits, 1, N, K, seed++);
      const DeviceWeights w(q);
      for (int64_t M : Ms) {
        const std::vector<float> A = make_exact_activations(M, K, seed++);
        std::vector<float> ref(size_t(M * N));
        gemm_ref(A.data(), M, q.view(), ref.data());
        for (Act act : {Act::f16, Act::bf16}) fn(bits, N, K, w, M, act, to_act(act, A), to_act(act, ref));
      }
    }
}

// Every run on exact-mode weights (k = 2..5, each shape) and activations (each M), f16 and bf16,
// C compared bit for bit with the CPU reference. `label` prefixes the failure messages.
void check_dense_exact(const std::vector<DenseRun>& runs, const std::vector<std::pair<int64_t, int64_t>>& shapes,
                       const std::vector<int64_t>& Ms, uint64_t seed, const char* label) {
  for_each_exact_dense({2, 3, 4, 5}, shapes, Ms, seed,
                       [&](int bits, int64_t N, int64_t K, const DeviceWeights& w, int64_t M, Act act,
                           const std::vector<uint16_t>& A, const std::vector<uint16_t>& want) {
                         for (const auto& [kernel, handle] : runs) {
                           std::vector<uint16_t> got;
                           if (!run_dense(kernel, act, w, A, M, got, handle)) continue;
                           const int64_t bad = first_mismatch(got, want);
                           CHECK_MESSAGE(bad < 0, label, std::string(gpu::kernel_name(kernel)),
                                         handle ? "" : " (no cuBLAS handle)", " k=", bits, " N=", N, " K=", K, " M=", M,
                                         " ", std::string(act_name(act)), ": C[", bad / N, ", ", bad % N, "] = ",
                                         (bad >= 0 ? from_act(act, got[size_t(bad)]) : 0.0f), " want ",
                                         (bad >= 0 ? from_act(act, want[size_t(bad)]) : 0.0f));
                         }
                       });
}

}  // namespace

TEST_CASE("gpu: dense kernels equal the CPU reference bit for bit in exact mode") {
  CublasHandle cublas;
  // Every dense kernel with the handle, then automatic without one (mma where it would pick
  // dequant_cublas) in the workspace linear_workspace_bytes(automatic) asks for. Under
  // KBIT_TEST_NO_CUBLAS there is no handle: the runs that need one are left out.
  std::vector<DenseRun> runs = {{gpu::Kernel::v0, cublas.h}, {gpu::Kernel::gemv, cublas.h}, {gpu::Kernel::tcv, cublas.h},
                                {gpu::Kernel::tcw, cublas.h}, {gpu::Kernel::mma, cublas.h}};
  if (cublas.h) runs.insert(runs.end(), {{gpu::Kernel::dequant_cublas, cublas.h}, {gpu::Kernel::automatic, cublas.h}});
  runs.push_back({gpu::Kernel::automatic, nullptr});
  check_dense_exact(runs, {{1, 32}, {8, 96}, {130, 2080}, {576, 256}, {64, 4096}},
                    {1, 2, 3, 4, 5, 8, 9, 16, 17, 33, 64, 65, 130}, 1, "");
}

TEST_CASE("gpu: tcw's stream-K plan equals the CPU reference bit for bit in exact mode") {
  // The plan picks stream-K only for makespans of >= 32 steps on shapes larger than a test's;
  // forced here so that the stream-K kernel, its shared tiles and the fixup meet the N, K and M
  // tails (130 rows: a partial row tile; K = 2080: a partial last step; 64 x 4096: 16 CTAs on one
  // tile).
  if (!gpu::tcw_supported()) return;
  CublasHandle cublas;
  gpu::detail::tcw_force_plan(2);
  check_dense_exact({{gpu::Kernel::tcw, cublas.h}}, {{130, 2080}, {576, 256}, {64, 4096}, {8, 96}},
                    {1, 9, 17, 33, 64, 65, 130, 257}, 101, "stream-K plan: ");
  gpu::detail::tcw_force_plan(0);
}

TEST_CASE("gpu: tcw's stream-K plan on 4 CTAs (long ranges across tiles) equals the CPU reference bit for bit") {
  // The forced plan above gives the small shapes 2-3 steps a CTA; here at most 4 CTAs share the
  // units, so a CTA's range runs many steps across several tiles (its stages reused, every pipeline
  // wait reached: KBIT_TCW_MBAR_SK's steady state and segment ends).
  if (!gpu::tcw_supported()) return;
  CublasHandle cublas;
  gpu::detail::tcw_force_plan(3);
  check_dense_exact({{gpu::Kernel::tcw, cublas.h}}, {{130, 2080}, {576, 256}, {64, 4096}, {8, 96}},
                    {1, 33, 64, 65, 257}, 103, "stream-K plan on 4 CTAs: ");
  gpu::detail::tcw_force_plan(0);
}

TEST_CASE("gpu: tcw's whole-tile runs on the stream-K kernel equal the CPU reference bit for bit") {
  // The plan gives whole runs (tcw_partition's `whole`) only to shapes of more than a wave of tiles;
  // forced here on at most 4 CTAs, each a run of whole tiles (no shared tile, no fixup), at every k,
  // both stream-K forms (cp.async below 128-token tiles, mbarriers from them), the N, K and M tails;
  // {384, 2048} at M = 257 (3 CTAs of 2 tiles) and {392, 2048} at M = 600 (4 of 3, a partial row tile)
  // have runs that cross from one token tile into the next after more steps than the stages hold.
  if (!gpu::tcw_supported()) return;
  CublasHandle cublas;
  gpu::detail::tcw_force_plan(4);
  check_dense_exact({{gpu::Kernel::tcw, cublas.h}},
                    {{130, 2080}, {576, 256}, {520, 2048}, {8, 96}, {384, 2048}, {392, 2048}},
                    {1, 33, 64, 65, 257, 600}, 107, "whole-tile runs: ");
  gpu::detail::tcw_force_plan(0);
}

TEST_CASE("gpu: tcw's K slices as clusters equal the CPU reference bit for bit") {
  // The forced plan 5: per tile, every split of 2..8 slices as one cluster summing through distributed shared
  // memory (tcw_kernel<..., CL = true>; by default only 2 slices of >= 4 MB of partials, KBIT_TCW_CLUSTER):
  // {130, 2080} splits 8 ways, {256, 1536} 6, {1024, 512} 2 (at M <= 64), with the N, K and M tails; {64, 4096}
  // splits 16 ways and falls back to tcw_reduce_kernel. The sum is the reduction's, in slice order.
  if (!gpu::tcw_supported() || !gpu::detail::device_has_clusters()) return;
  CublasHandle cublas;
  gpu::detail::tcw_force_plan(5);
  const bool h100 = gpu::detail::device_sm_count() == 132;  // there the clusters below fit
  TiledView w;
  w.half_cb = true;
  for (int bits : {2, 3, 4, 5}) {
    w.bits = bits;
    for (auto [N, K, M, cl] : {std::tuple<int64_t, int64_t, int64_t, bool>{130, 2080, 33, true}, {1024, 512, 64, true},
                               {256, 1536, 65, true}, {64, 4096, 33, false}}) {
      w.N = N;
      w.K = K;
      CAPTURE(bits);
      CAPTURE(N);
      const gpu::detail::TcwOccupancy o = gpu::detail::tcw_occupancy(M, w, false);
      CHECK_FALSE(o.stream_k);
      if (h100 || !cl) CHECK(o.cluster == cl);
    }
  }
  check_dense_exact({{gpu::Kernel::tcw, cublas.h}}, {{130, 2080}, {256, 1536}, {1024, 512}, {64, 4096}},
                    {1, 9, 33, 64, 65, 130, 257}, 109, "cluster slices: ");
  gpu::detail::tcw_force_plan(0);
}

TEST_CASE("gpu: tcw's 160-, 192- and 224-token tiles equal the CPU reference bit for bit in every plan form") {
  // KBIT_TCW_TILE160 / 192 / 224: tcw_choose_tile takes the least of them that needs no more token tiles than 256
  // (GLM o_proj at M = 288 on 132 SMs: 160, or 192 in builds without 160; not at M = 256, where either needs two).
  // Each tile forced here on small shapes under each
  // plan form: per tile (K split, tcw_reduce_kernel), stream-K with its fixup, whole-tile runs, and K slices as
  // clusters; M = 160 and 192 (one token tile, partly and wholly filled), 257 and 383 (two, the second nearly
  // empty and nearly full), 600 (four), with the N and K tails of {130, 2080}.
  if (!gpu::tcw_supported()) return;
  const bool t160 = gpu::detail::tcw_tile_built(160), t192 = gpu::detail::tcw_tile_built(192);
  if (!t160 && !t192 && !gpu::detail::tcw_tile_built(224)) {
    MESSAGE("built with KBIT_TCW_TILE160, 192 and 224 all 0: no tile between 128 and 256 tokens to check");
    return;
  }
  TiledView w;
  w.bits = 4;
  w.half_cb = true;
  w.N = 2048;
  w.K = 5120;
  const bool h100 = gpu::detail::device_sm_count() == 132;
  if (h100 && (t160 || t192)) {
    CHECK(gpu::detail::tcw_occupancy(288, w, false).mn == (t160 ? 160 : 192));
    const int at256 = gpu::detail::tcw_occupancy(256, w, false).mn;  // two 160- or 192-token tiles against one
    CHECK((at256 != 160 && at256 != 192));                           // (it takes 128)
    const int at640 = gpu::detail::tcw_occupancy(640, w, false).mn;  // above M = 576 (kTcwMidMaxM): none of them
    CHECK((at640 != 160 && at640 != 192 && at640 != 224));
  }
  struct Unforce {  // the next tests plan freely even if a check below throws
    ~Unforce() {
      gpu::detail::tcw_force_plan(0);
      gpu::detail::tcw_force_tile(0);
    }
  } unforce;
  CublasHandle cublas;
  w.N = 130;
  w.K = 2080;
  // Each tile the build has; KBIT_TEST_TCW_TILES (e.g. "160,224") runs only those listed (a sanitizer's time).
  const char* only = std::getenv("KBIT_TEST_TCW_TILES");
  int tiles_run = 0;
  for (int mn : {192, 160, 224}) {
    if (!gpu::detail::tcw_tile_built(mn)) continue;
    if (only && std::string(only).find(std::to_string(mn)) == std::string::npos) continue;
    ++tiles_run;
    gpu::detail::tcw_force_tile(mn);
    for (int mode : {1, 2, 4, 5}) {
      if (mode == 5 && !gpu::detail::device_has_clusters()) continue;
      gpu::detail::tcw_force_plan(mode);
      // the plan form each mode forces, at the tile: per tile, stream-K, whole runs (on the stream-K kernel), and
      // 8 slices as one cluster per tile (where those fit: as on the H100)
      const gpu::detail::TcwOccupancy o = gpu::detail::tcw_occupancy(257, w, false);
      CAPTURE(mn);
      CAPTURE(mode);
      CHECK(o.mn == mn);
      CHECK(o.stream_k == (mode == 2 || mode == 4));
      if (mode != 5 || h100) CHECK(o.cluster == (mode == 5));
      const std::string label = std::to_string(mn) + "-token tile, plan " + std::to_string(mode) + ": ";
      check_dense_exact({{gpu::Kernel::tcw, cublas.h}}, {{130, 2080}, {384, 1024}}, {160, 192, 257, 383, 600},
                        113 + 10 * static_cast<uint64_t>(mode) + static_cast<uint64_t>(mn - 192), label.c_str());
    }
  }
  CHECK_MESSAGE(tiles_run > 0, "KBIT_TEST_TCW_TILES=", only ? only : "", " names no tile this build has");
}

#if KBIT_TCW_TIMELINE
TEST_CASE("gpu: tcw timeline (KBIT_TCW_TIMELINE builds): every warp stamps each step's events in order") {
  // A diagnostic build's check, not a benchmark: tcw_kernel (per-tile plans, forced) stamps its SM clock at six
  // points of each step (tcw_common.cuh); with KBIT_TCW_TIMELINE_OUT set the stamps go to that CSV for
  // bench/scripts/tcw_timeline.py. Shapes of the "never slower than cuBLAS" gap (Llama-3 attention at
  // M = 256..512, k = 4 on the pair table as real checkpoints are, and k = 2).
  if (!gpu::tcw_supported()) return;
  const int ctas = 132;
  namespace d = gpu::detail;  // the buffer's layout: launch.h
  const size_t words = d::tcw_timeline_words(ctas),
               stamp_words = size_t(ctas) * d::kTcwTlWarps * d::kTcwTlSteps * d::kTcwTlEvents;
  DeviceBuf<uint32_t> buf(words);
  REQUIRE(gpu::detail::tcw_timeline_set(buf.p, ctas));
  struct Unset {
    ~Unset() {
      gpu::detail::tcw_timeline_set(nullptr, 0);
      gpu::detail::tcw_force_plan(0);
      gpu::detail::tcw_force_tile(0);
    }
  } unset;
  const char* out = std::getenv("KBIT_TCW_TIMELINE_OUT");
  FILE* f = out ? std::fopen(out, "w") : nullptr;
  if (out) REQUIRE_MESSAGE(f != nullptr, "cannot write KBIT_TCW_TIMELINE_OUT=", out);
  if (f) std::fprintf(f, "case,N,K,M,bits,tile,cta,smid,t_start,t_end,steps,c_start,c_end,warp,step,e0,e1,e2,e3,e4,e5\n");
  struct Case {
    const char* name;
    int64_t N, K, M;
    int bits;
  };
  const Case cases[] = {{"llama8b.q_proj", 4096, 4096, 288, 4}, {"llama8b.q_proj", 4096, 4096, 512, 4},
                        {"llama8b.q_proj", 4096, 4096, 288, 2}, {"llama70b.q_proj", 8192, 8192, 256, 4},
                        {"llama70b.q_proj", 8192, 8192, 128, 4}};
  Rng rng(77);
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CAPTURE(c.M);
    CAPTURE(c.bits);
    QuantizedTensor q = random_weights(c.bits, 1, c.N, c.K, 500 + uint64_t(c.M) + uint64_t(c.bits));
    for (size_t i = 0; i < q.codebook_stored.size(); ++i)  // fp16-normal values: k = 4 takes the pair table
      q.codebook_stored[i] = -1.0f + 2.0f * (float(i) + 0.5f) / float(q.codebook_stored.size());
    DeviceWeights w(q);
    std::vector<uint16_t> A(size_t(c.M * c.K));
    for (auto& a : A) a = to_act(Act::f16, float(rng.uniform() - 0.5));
    std::vector<uint16_t> C;
    // The token tile tcw's own plan takes, then a per-tile plan at it (tcw_kernel, the instrumented kernel; the own
    // plan may be stream-K, whole runs or clusters, which are not stamped).
    gpu::detail::tcw_force_plan(0);
    gpu::detail::tcw_force_tile(0);
    const int tile = gpu::detail::tcw_occupancy(c.M, w.view, false).mn;
    gpu::detail::tcw_force_tile(tile);
    gpu::detail::tcw_force_plan(1);
    REQUIRE(gpu::detail::tcw_occupancy(c.M, w.view, false).mn == tile);
    for (int rep = 0; rep < 2; ++rep) {  // the second launch's stamps (the first warms caches and clocks)
      buf.zero();
      REQUIRE(run_dense(gpu::Kernel::tcw, Act::f16, w, A, c.M, C, nullptr));
    }
    const std::vector<uint32_t> h = buf.host();
    auto after = [](uint32_t a, uint32_t b) { return static_cast<int32_t>(b - a) >= 0; };  // b at or after a
    int64_t stamped = 0, out_of_order = 0;
    for (int cta = 0; cta < ctas; ++cta) {
      const uint32_t* cw = h.data() + stamp_words + size_t(cta) * d::kTcwTlCtaWords;
      const int steps = static_cast<int>(std::min<uint32_t>(cw[3], d::kTcwTlSteps));
      for (int warp = 0; warp < d::kTcwTlWarps; ++warp)
        for (int st = 0; st < steps; ++st) {
          const uint32_t* e = h.data() + ((size_t(cta) * d::kTcwTlWarps + warp) * d::kTcwTlSteps + st) * d::kTcwTlEvents;
          ++stamped;
          uint32_t prev = e[0];
          for (int ev = 1; ev < d::kTcwTlEvents; ++ev) {
            if (e[ev] == 0 && c.bits <= 3 && (ev == 1 || ev == 2)) continue;  // k <= 3 leaves them unset
            if (!after(prev, e[ev])) ++out_of_order;
            prev = e[ev];
          }
          if (st + 1 < steps && !after(e[5], e[d::kTcwTlEvents])) ++out_of_order;  // the next step's top after this one
          if (f)
            std::fprintf(f, "%s,%lld,%lld,%lld,%d,%d,%d,%u,%u,%u,%u,%u,%u,%d,%d,%u,%u,%u,%u,%u,%u\n", c.name,
                         static_cast<long long>(c.N), static_cast<long long>(c.K), static_cast<long long>(c.M),
                         c.bits, tile, cta, cw[0], cw[1], cw[2], cw[3], cw[4], cw[5], warp, st, e[0], e[1], e[2],
                         e[3], e[4], e[5]);
        }
    }
    CHECK(stamped > 0);
    CHECK(out_of_order == 0);
  }
  if (f) REQUIRE(std::fclose(f) == 0);
}
#endif

#if KBIT_GEMV_TIMELINE
TEST_CASE("gpu: gemv timeline (KBIT_GEMV_TIMELINE builds): every warp stamps each step's events in order") {
  // A diagnostic build's check, not a benchmark: gemv's register pipeline stamps its SM clock at four points of
  // each step (gemv_common.cuh's gemv_tile); with KBIT_GEMV_TIMELINE_OUT set the stamps go to that CSV for bench/scripts/gemv_timeline.py.
  // The M = 1 shapes of the H200's bandwidth gap (docs/perf-notes.md, forty-first session), f16, the pair tables as
  // real checkpoints take them (fp16-normal codebooks), the staged form off.
  namespace d = gpu::detail;  // the buffer's layout: launch.h
  const int ctas = 2048;
  const size_t words = d::gemv_timeline_words(ctas),
               stamp_words = size_t(ctas) * d::kGemvTlWarps * d::kGemvTlSteps * d::kGemvTlEvents;
  DeviceBuf<uint32_t> buf(words);
  REQUIRE(d::gemv_timeline_set(buf.p, ctas));
  struct Unset {
    ~Unset() {
      gpu::detail::gemv_timeline_set(nullptr, 0);
      gpu::detail::gemv_force_staged(0);
    }
  } unset;
  d::gemv_force_staged(2);
  const char* out = std::getenv("KBIT_GEMV_TIMELINE_OUT");
  FILE* f = out ? std::fopen(out, "w") : nullptr;
  if (out) REQUIRE_MESSAGE(f != nullptr, "cannot write KBIT_GEMV_TIMELINE_OUT=", out);
  if (f) std::fprintf(f, "case,N,K,bits,cta,smid,t_start,t_end,steps,c_start,c_end,warp,step,e0,e1,e2,e3\n");
  struct Case {
    const char* name;
    int64_t N, K;
    int bits;
  };
  const Case cases[] = {{"llama70b.gate_up", 57344, 8192, 4}, {"llama70b.gate_up", 57344, 8192, 2},
                        {"llama70b.q_proj", 8192, 8192, 4}, {"llama8b.gate_up", 28672, 4096, 4}};
  Rng rng(91);
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CAPTURE(c.bits);
    QuantizedTensor q = random_weights(c.bits, 1, c.N, c.K, 900 + uint64_t(c.bits));
    for (size_t i = 0; i < q.codebook_stored.size(); ++i)  // fp16-normal values, as kbit-quantize writes them
      q.codebook_stored[i] = -1.0f + 2.0f * (float(i) + 0.5f) / float(q.codebook_stored.size());
    DeviceWeights w(q);
    std::vector<uint16_t> A(size_t(c.K));
    for (auto& a : A) a = to_act(Act::f16, float(rng.uniform() - 0.5));
    std::vector<uint16_t> C;
    for (int rep = 0; rep < 2; ++rep) {  // the second launch's stamps (the first warms caches and clocks)
      buf.zero();
      REQUIRE(run_dense(gpu::Kernel::gemv, Act::f16, w, A, 1, C, nullptr));
    }
    const std::vector<uint32_t> h = buf.host();
    auto after = [](uint32_t a, uint32_t b) { return static_cast<int32_t>(b - a) >= 0; };  // b at or after a
    // Every CTA of the grid up to `ctas` stamped (a prefix of the CTA indices), warp 0 as many steps as its CTA
    // counted (up to kGemvTlSteps), the other warps the same or one fewer (k-tiles go round the 4 warps).
    int64_t stamped = 0, out_of_order = 0, bad_counts = 0;
    int ctas_seen = 0;
    bool gap = false;
    for (int cta = 0; cta < ctas; ++cta) {
      const uint32_t* cw = h.data() + stamp_words + size_t(cta) * d::kGemvTlCtaWords;
      if (cw[1] == 0 && cw[2] == 0) {  // past the grid (or a CTA that stamped nothing: the next ones must not either)
        gap = true;
        continue;
      }
      if (gap) ++bad_counts;
      ++ctas_seen;
      const int steps0 = static_cast<int>(std::min<uint32_t>(cw[3], d::kGemvTlSteps));
      for (int warp = 0; warp < d::kGemvTlWarps; ++warp) {
        int st = 0;
        for (; st < d::kGemvTlSteps; ++st) {
          const uint32_t* e = h.data() + ((size_t(cta) * d::kGemvTlWarps + warp) * d::kGemvTlSteps + st) * d::kGemvTlEvents;
          if (e[0] == 0 && e[3] == 0) break;  // this warp's steps end here
          ++stamped;
          for (int ev = 1; ev < d::kGemvTlEvents; ++ev)
            if (!after(e[ev - 1], e[ev])) ++out_of_order;
          if (st + 1 < d::kGemvTlSteps && e[d::kGemvTlEvents] != 0 && !after(e[3], e[d::kGemvTlEvents])) ++out_of_order;
          if (f)
            std::fprintf(f, "%s,%lld,%lld,%d,%d,%u,%u,%u,%u,%u,%u,%d,%d,%u,%u,%u,%u\n", c.name,
                         static_cast<long long>(c.N), static_cast<long long>(c.K), c.bits, cta, cw[0], cw[1], cw[2],
                         cw[3], cw[4], cw[5], warp, st, e[0], e[1], e[2], e[3]);
        }
        if (warp == 0 ? st != steps0 : st != steps0 && st != steps0 - 1) ++bad_counts;
      }
    }
    CHECK(ctas_seen > 0);
    CHECK(stamped > 0);
    CHECK(out_of_order == 0);
    CHECK(bad_counts == 0);
  }
  if (f) REQUIRE(std::fclose(f) == 0);
}
#endif

TEST_CASE("gpu: tcw's plan takes whole-tile runs at k >= 4 on >= 16 steps only") {
  // Llama-3-70B gate_up at M = 1024 (448 x 4 tiles of 64 steps: several waves per tile on an H100)
  // runs on the stream-K kernel (whole runs) at k = 4, 5 and per tile at k = 2, 3; GLM q_b_proj
  // (5120 x 768: 6 steps) per tile at every k. Only the shape reaches the plan (no memory allocated).
  // On another SM count the partition decides (its 256-token kernels hold one CTA per SM).
  if (!gpu::tcw_supported()) return;
  const int sms = gpu::detail::device_sm_count();
  auto stream_k = [&](bool whole_runs) {
    return kbit::tcw_slots(1024, 57344, 64, 1792, sms, 1, kbit::kTcwSharedSmMinSteps, 0, whole_runs).part.splits == 0;
  };
  const bool balanced = stream_k(false), whole = stream_k(true);
  if (sms == 132) CHECK((!balanced && whole));  // H100 SXM, H200
  for (int bits = 2; bits <= 5; ++bits)
    for (bool half_cb : {false, true}) {
      TiledView w;
      w.bits = bits;
      w.half_cb = half_cb;
      w.N = 57344;
      w.K = 8192;
      INFO("k=", bits, " half_cb=", half_cb);
      CHECK(gpu::detail::tcw_occupancy(1024, w, false).stream_k == (balanced || (whole && bits >= 4)));
      w.N = 5120;
      w.K = 768;
      CHECK_FALSE(gpu::detail::tcw_occupancy(1024, w, false).stream_k);
    }
}

TEST_CASE("gpu: gemv's and tcv's cluster and workspace split-K equal the CPU reference bit for bit in exact mode") {
  // gemv splits K over 8 CTAs of one cluster on {130, 2080} (3 row tiles, 33 k-tiles), 3 on
  // {70, 768}, 6 on {64, 1600} (odd slices, a partial row tile) and 16 through the workspace on
  // {64, 4096}; tcv (by tcv_plan_for on an H100's 132 SMs) splits {130, 2080} in 2 and {64, 4096}
  // in 4 in a cluster, runs {1288, 2048} in one pass (2 slices would be 162 CTAs) and splits
  // {1032, 4096} in clusters of 4 on 260 CTAs (partial row tiles in both). Then the same with
  // clusters off, as on a GPU without them: gemv's splits and tcv's {130, 2080}, {64, 4096} and
  // {1032, 4096} go through the workspace, tcv's {70, 768} runs in one pass.
  CublasHandle cublas;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{130, 2080}, {70, 768}, {64, 1600}, {64, 4096},
                                                           {1288, 2048}, {1032, 4096}};
  const std::vector<DenseRun> runs = {{gpu::Kernel::gemv, cublas.h}, {gpu::Kernel::tcv, cublas.h}};
  check_dense_exact(runs, shapes, {1, 2, 3, 4, 9, 16}, 201, "cluster split-K: ");
  gpu::detail::force_no_clusters(true);
  check_dense_exact(runs, shapes, {1, 2, 3, 4, 9, 16}, 301, "workspace split-K: ");
  gpu::detail::force_no_clusters(false);
}

TEST_CASE("gpu: gemv's pair tables (k = 2, 3, 4) and float codebook both equal the CPU reference bit for bit in exact mode") {
  // gemv_force_pairs(1) puts every k = 3 and 4 gemv and every k = 2 gemv at M = 1 on the pair table (its size
  // rule, kGemvPairsMinWeights, would leave these small shapes on the float codebook), 2 on the float codebook
  // (k = 2 at M >= 2: the interleaved pair table in both); the same products (in the same order at k = 3, 4;
  // exact mode's sums are exact in any order), so both must equal the reference exactly. Shapes: partial row tiles (1, 8, 130, 70 rows),
  // the pad block of K % 64 == 32 (96, 2080), cluster split-K ({130, 2080}, {70, 768}, {64, 1600})
  // and workspace split-K ({64, 4096}, and all of them with clusters off).
  CublasHandle cublas;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 32}, {8, 96}, {130, 2080}, {70, 768}, {64, 1600},
                                                           {64, 4096}};
  const std::vector<DenseRun> runs = {{gpu::Kernel::gemv, cublas.h}};
  for (int mode : {1, 2}) {
    gpu::detail::gemv_force_pairs(mode);
    const DeviceWeights w4(make_exact_weights(4, 1, 64, 256, 400));
    CHECK_MESSAGE(gpu::detail::gemv_uses_pairs(w4.view, 1) == (mode == 1), "gemv_force_pairs(", mode, ") not followed");
    const char* label = mode == 1 ? "pair table: " : "float codebook: ";
    const int64_t before = gpu::detail::gemv_pair_launches();
    check_dense_exact(runs, shapes, {1, 2, 3, 4}, 401 + 100 * mode, label);
    gpu::detail::force_no_clusters(true);
    check_dense_exact(runs, shapes, {1, 2, 3, 4}, 451 + 100 * mode, label);
    gpu::detail::force_no_clusters(false);
    // the launches that took a table: (k = 3 and 4 (of 2..5) x 4 M + k = 2 x M = 1) x 6 shapes x 2 dtypes
    // x 2 passes when forced on, none when forced off
    CHECK_MESSAGE(gpu::detail::gemv_pair_launches() - before == (mode == 1 ? (2 * 4 + 1) * 6 * 2 * 2 : 0), label,
                  "pair-table launches");
  }
  gpu::detail::gemv_force_pairs(0);
}

TEST_CASE("gpu: gemv's activation-sum tables (M = 1, k = 2) equal the CPU reference bit for bit in exact mode") {
  // gemv_force_lut(1) makes every register-pipeline launch at M = 1, k = 2 look up per-warp tables of activation
  // sums (cb[lo] x[2i] + cb[hi] x[2i + 1], KBIT_GEMV_LUT) instead of codebook pairs; exact mode's products and sums
  // are exact in any order, so both decodes must equal the reference exactly. Staged form off, so every such
  // launch counts. Shapes: partial row tiles (1, 8, 130, 70 rows), the pad block of K % 64 == 32 (96, 2080),
  // cluster and workspace split-K, warps that rewrite their table over many k-tiles ({64, 8192}, {16930, 768}).
  CublasHandle cublas;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 32}, {8, 96}, {130, 2080}, {70, 768}, {64, 1600},
                                                           {64, 4096}, {64, 8192}, {16930, 768}};
  gpu::detail::gemv_force_staged(2);
  for (int mode : {1, 2}) {
    gpu::detail::gemv_force_lut(mode);
    const std::string label = mode == 1 ? "activation sums: " : "codebook pairs: ";
    const int64_t before = gpu::detail::gemv_lut_launches();
    check_dense_exact({{gpu::Kernel::gemv, cublas.h}}, shapes, {1}, 1401 + 10 * mode, label.c_str());
    gpu::detail::force_no_clusters(true);
    check_dense_exact({{gpu::Kernel::gemv, cublas.h}}, shapes, {1}, 1451 + 10 * mode, label.c_str());
    gpu::detail::force_no_clusters(false);
    // k = 2 x 8 shapes x 2 dtypes x 2 passes when forced on, none when forced off
    const int64_t took = gpu::detail::gemv_lut_launches() - before;
    CHECK_MESSAGE(took == (mode == 1 ? 8 * 2 * 2 : 0), label, "activation-sum launches: ", took);
  }
  gpu::detail::gemv_force_lut(0);
  gpu::detail::gemv_force_staged(0);
}

TEST_CASE("gpu: gemv at M = 1, k = 4 keeps the pair table on a multi-wave grid only from 4,500 GB/s of peak bandwidth") {
  // 65536 x 256: 1,024 row tiles of one K slice (4 k-tiles), and 16.8 M weights, above the table's size rule
  // (kGemvPairsMinWeights). The k = 4 table kernel holds at most 6 CTAs per SM (its ~34 KB of shared memory), so the
  // grid takes more than one wave below ~170 SMs (132 on an H100 or H200). Per dtype the launches that take a pair
  // table are k = 2 (adjacent pairs) and k = 3 on every grid, and k = 4 where the grid fits one wave or where
  // gemv_pairs_multiwave holds for this device (the H200, not an H100: bench/results/2026-11-28-h200-gemvptmw); every
  // run equals the reference bit for bit either way.
  CublasHandle cublas;
  const double gbps = gpu::detail::device_peak_dram_gbps();
  const bool fast = gemv_pairs_multiwave(gbps);
  const bool multiwave = gpu::detail::device_sm_count() * 6 < 1024;
  MESSAGE("peak DRAM bandwidth ", gbps, " GB/s: the k = 4 pair table on multi-wave grids ", std::string(fast ? "on" : "off"),
          std::string(multiwave ? "" : " (this device runs the 1,024 tiles in one wave: the rule is not exercised)"));
  const int64_t before = gpu::detail::gemv_pair_launches();
  check_dense_exact({{gpu::Kernel::gemv, cublas.h}}, {{65536, 256}}, {1}, 811, "multi-wave gemv: ");
  const int64_t took = gpu::detail::gemv_pair_launches() - before;
  CHECK_MESSAGE(took == 2 * (2 + (fast || !multiwave ? 1 : 0)), "pair-table launches: ", took);
}

TEST_CASE("gpu: gemv's staged form (M = 1) equals the CPU reference bit for bit in exact mode") {
  // gemv_force_staged(1) takes the staged kernel wherever its plan allows it (no cluster, at most
  // kGemvStageDepth k-tiles per warp), with clusters off so that the split shapes run on the
  // workspace; 2 keeps it off. Shapes: partial row tiles (8, 130, 70 and 16930 rows), the pad block
  // of K % 64 == 32 (96, 2080, 992), 1..2 k-tiles per warp, and 265 row tiles, more than the grid's
  // slots per tile allow a second slice (on an H100), so unsplit rows of 12 and 16 k-tiles (K = 768,
  // 992): 3 and 4 per warp, every wait depth of the ring (gemv_staged_seen checks that the launches
  // reached them). Three passes: the pair tables by their rule, forced on, forced off. Same products
  // in the same order as the register pipeline: both must equal the reference exactly. Odd N never
  // takes the staged form (its absmax bytes are copied 4 at a time), so {1, 32} checks the fallback
  // under force.
  CublasHandle cublas;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 32}, {8, 96}, {130, 2080}, {70, 768}, {64, 1600},
                                                           {64, 4096}, {16930, 768}, {16960, 992}};
  gpu::detail::force_no_clusters(true);
  gpu::detail::gemv_staged_seen();  // reset
  for (int mode : {1, 2}) {
    gpu::detail::gemv_force_staged(mode);
    const char* label = mode == 1 ? "staged: " : "register pipeline: ";
    const int64_t before = gpu::detail::gemv_staged_launches();
    check_dense_exact({{gpu::Kernel::gemv, cublas.h}}, shapes, {1}, 601 + 100 * mode, label);
    // forced: every shape but {1, 32} at 4 widths and 2 dtypes; the pair tables on and off alike
    const int64_t dense = gpu::detail::gemv_staged_launches() - before;
    CHECK_MESSAGE(dense == (mode == 1 ? 7 * 4 * 2 : 0), label, "dense staged launches: ", dense);
    for (int pairs : {1, 2}) {
      gpu::detail::gemv_force_pairs(pairs);
      check_dense_exact({{gpu::Kernel::gemv, cublas.h}}, shapes, {1}, 621 + 10 * pairs + 100 * mode, label);
    }
    gpu::detail::gemv_force_pairs(0);
    // every depth of the ring, 1..4 k-tiles per warp, when forced; nothing staged otherwise
    const int seen = gpu::detail::gemv_staged_seen();
    CHECK_MESSAGE((seen & 15) == (mode == 1 ? 15 : 0), label, "k-tiles per warp reached (bit d - 1 for d): ", seen);
  }
  gpu::detail::gemv_force_staged(0);
  gpu::detail::force_no_clusters(false);
}

namespace {
// The work before the launch in the PDL tests: it lets its dependents start at once
// (griddepcontrol.launch_dependents), spins for `cycles`, then copies the real activations into A
// (and the MoE routing into `off`) and poisons C. A kernel that read A before waiting for it would
// compute on NaN, one that read the routing early would see no rows, and one that wrote C before
// the wait would have its output overwritten by the poison.
__global__ void slow_producer(const uint16_t* __restrict__ src, uint16_t* A, int64_t na, uint16_t* C, int64_t nc,
                              long long cycles, const int32_t* __restrict__ osrc = nullptr, int32_t* off = nullptr,
                              int64_t noff = 0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < na; i += stride) A[i] = src[i];
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < nc; i += stride) C[i] = 0xffff;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < noff; i += stride) off[i] = osrc[i];
}

// Queues slow_producer on the idle device (it writes A from `src`, the MoE routing from `osrc` when
// given, and poisons C), then `call`, the work under test, on the same stream; returns when both
// are done.
template <class Call>
void behind_slow_producer(cudaStream_t s, const DeviceBuf<uint16_t>& src, DeviceBuf<uint16_t>& A, DeviceBuf<uint16_t>& C,
                          Call&& call, const DeviceBuf<int32_t>* osrc = nullptr, DeviceBuf<int32_t>* off = nullptr) {
  CUDA_REQUIRE(cudaDeviceSynchronize());
  slow_producer<<<8, 256, 0, s>>>(src.p, A.p, int64_t(A.n), C.p, int64_t(C.n), 200000, osrc ? osrc->p : nullptr,
                                  off ? off->p : nullptr, off ? int64_t(off->n) : 0);
  CUDA_REQUIRE(cudaGetLastError());
  call();
  CUDA_REQUIRE(cudaStreamSynchronize(s));
}

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { CUDA_REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s); }
};

// One linear() on `stream`, with LinearArgs::pdl or without; false where the kernel refuses M (as
// run_dense: gemv above M = 4, tcv above 16).
bool launch_pdl(gpu::Kernel kernel, Act act, const DeviceWeights& w, const uint16_t* A, uint16_t* C, int64_t M,
                DeviceBuf<char>& ws, cudaStream_t stream, bool pdl) {
  gpu::LinearArgs a;
  a.A = A, a.C = C, a.M = M, a.act = act, a.w = w.view, a.kernel = kernel;
  a.workspace = ws.p, a.workspace_bytes = ws.n, a.stream = stream, a.pdl = pdl;
  const gpu::Status s = gpu::linear(a);
  if (s == gpu::Status::bad_kernel && ((kernel == gpu::Kernel::gemv && M > 4) || (kernel == gpu::Kernel::tcv && M > 16)))
    return false;
  REQUIRE_MESSAGE(s == gpu::Status::ok, gpu::status_name(s), ": ", gpu::status_message());
  return true;
}

// Each of `kernels` launched with LinearArgs::pdl behind slow_producer on `s`, for every k of bits_list, shape (N, K) of
// `sh` and M of `Ms`, in f16 and bf16: C must equal the CPU reference bit for bit. Seeds come from `seed` (one per
// shape's weights, then one per M's activations); a kernel that refuses M (launch_pdl) is skipped.
void check_pdl_exact(cudaStream_t s, uint64_t& seed, const std::vector<gpu::Kernel>& kernels, const char* label,
                     const std::vector<std::pair<int64_t, int64_t>>& sh, const std::vector<int64_t>& Ms,
                     const std::vector<int>& bits_list = {2, 3, 4, 5}) {
  for_each_exact_dense(bits_list, sh, Ms, seed,
                       [&](int bits, int64_t N, int64_t K, const DeviceWeights& w, int64_t M, Act act,
                           const std::vector<uint16_t>& A, const std::vector<uint16_t>& want) {
                         const DeviceBuf<uint16_t> src(A);
                         for (gpu::Kernel kernel : kernels) {
                           DeviceBuf<uint16_t> dA(size_t(M * K)), dC(size_t(M * N));
                           dA.poison();  // NaN until the producer writes it
                           dC.zero();
                           DeviceBuf<char> ws(gpu::linear_workspace_bytes(M, w.view, act, kernel));
                           ws.zero();
                           bool ran = false;
                           behind_slow_producer(s, src, dA, dC,
                                                [&] { ran = launch_pdl(kernel, act, w, dA.p, dC.p, M, ws, s, true); });
                           if (!ran) continue;
                           const std::vector<uint16_t> got = dC.host();
                           const int64_t bad = first_mismatch(got, want);
                           CHECK_MESSAGE(bad < 0, std::string(label), std::string(gpu::kernel_name(kernel)), " k=", bits,
                                         " N=", N, " K=", K, " M=", M, " ", std::string(act_name(act)),
                                         ": first wrong element ", bad, " = ",
                                         bad >= 0 ? from_act(act, got[size_t(bad)]) : 0.0f, " want ",
                                         bad >= 0 ? from_act(act, want[size_t(bad)]) : 0.0f);
                         }
                       });
}

}  // namespace

TEST_CASE("gpu: with LinearArgs::pdl the kernels wait for the work before them in the stream") {
  // gemv's and tcv's plans on these shapes: split K in one cluster, tcv's one pass, split K
  // through the workspace ({64, 4096} for gemv; at M = 1, 2 with the weights loaded before the wait,
  // gemv_early_launch) and whole-K tiles; gemv_pdl_plan's unsplit M = 1 grid ({2048, 512}) and
  // cluster grid moved to the workspace ({1024, 2048}: 128 CTAs); tcw's per-tile plan with its
  // permute and reduce launches, then its stream-K plan (forced) with the fixup launch. Whatever
  // the plan, C must be the CPU reference's bit for bit. The producer runs ~0.1 ms after it lets
  // the first launch start.
  Stream st;
  std::printf("programmatic dependent launch on this device: %s\n", gpu::detail::device_has_pdl() ? "yes" : "no");
  {
    // This build (the library's architectures are the test's) for sm_90 on an sm_90 GPU must run
    // PDL: device_has_pdl's probe must not turn it off there.
    bool built_for_sm90 = false;
#ifdef __CUDA_ARCH_LIST__
    for (int arch : {__CUDA_ARCH_LIST__}) built_for_sm90 |= arch >= 900 && arch < 1000;
#endif
    int major = 0;
    CUDA_REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    if (major == 9 && built_for_sm90) CHECK(gpu::detail::device_has_pdl());
  }
  uint64_t seed = 9100;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{130, 2080}, {70, 768}, {1288, 2048}, {1032, 4096},
                                                           {64, 4096},  {2048, 512}, {1024, 2048}};
  auto check = [&](const std::vector<gpu::Kernel>& kernels, const char* label,
                   const std::vector<std::pair<int64_t, int64_t>>& sh, const std::vector<int64_t>& Ms) {
    check_pdl_exact(st.s, seed, kernels, label, sh, Ms);
  };
  std::vector<gpu::Kernel> kernels = {gpu::Kernel::gemv, gpu::Kernel::tcv, gpu::Kernel::automatic};
  if (gpu::tcw_supported()) kernels.push_back(gpu::Kernel::tcw);
  const std::vector<int64_t> Ms = {1, 2, 3, 9, 16, 40};
  check(kernels, "pdl ", shapes, Ms);
  // tcv's grids that are neither cluster nor one-pass plans (clusters off), by launch_tcv_t's modes on
  // an H100: early split grids (kTcvEarly: {130, 2080} in 2 slices, {1032, 4096} in 4, {2048, 5120} in
  // 5, one wave each; {4096, 4096}, cut to one wave: 768 CTAs of 3 slices at M <= 8, 512 of 2 at
  // M = 9, 16, kTcvEarly since the cut: bench/results/2026-11-27-h100-tcvwave), an
  // unsplit grid of exactly the resident slots at M <= 8 ({50688, 256}: 792 CTAs, kTcvEarly; at
  // M = 9, 16 more than the 660 slots, kTcvUnsplit) and a multi-wave grid with a partial row tile
  // ({60000, 256}: 938 unsplit CTAs at M = 9, 16, kTcvUnsplit; 2 slices of them at M = 1, 2, the
  // large-N branch's split grid of several waves, kTcvWorkspace).
  gpu::detail::force_no_clusters(true);
  check({gpu::Kernel::tcv}, "pdl tcv workspace and unsplit grids: ",
        {{130, 2080}, {1032, 4096}, {2048, 5120}, {4096, 4096}, {50688, 256}, {60000, 256}}, {1, 2, 9, 16});
  gpu::detail::force_no_clusters(false);
  // gemv's pair tables (staged after the first weight loads on the early and cluster grids) at k = 4
  // on these shapes, which are below the table's size threshold; k = 2 at M = 1 has its own always.
  gpu::detail::gemv_force_pairs(1);
  check({gpu::Kernel::gemv}, "pdl gemv pair tables: ", shapes, Ms);
  gpu::detail::gemv_force_pairs(0);
  // gemv's activation-sum tables (M = 1, k = 2; KBIT_GEMV_LUT) forced on every shape, most below their size rule, with
  // the staged form off so that every k = 2 launch takes them: the early, cluster and workspace grids under PDL.
  gpu::detail::gemv_force_lut(1);
  gpu::detail::gemv_force_staged(2);
  const int64_t lut_before = gpu::detail::gemv_lut_launches();
  check({gpu::Kernel::gemv}, "pdl gemv activation-sum tables: ", shapes, {1});
  const int64_t lut_took = gpu::detail::gemv_lut_launches() - lut_before;
  CHECK_MESSAGE(lut_took == int64_t(shapes.size()) * 2, "activation-sum launches under PDL (k = 2 x shapes x 2 dtypes): ",
                lut_took);
  gpu::detail::gemv_force_staged(0);
  gpu::detail::gemv_force_lut(0);
  // gemv's staged form at M = 1 (its weights requested before the wait, A after it), with and
  // without the pair tables. It runs under PDL only on the early grids: 16960 x 992 (265 unsplit
  // CTAs of 16 k-tiles, where gemv_early_launch does not hold) takes the register pipeline even when
  // forced, since the staged kernels that trigger after their main loop read A before the wait
  // (launch_dense) and failed this case.
  if (gpu::detail::device_has_pdl()) {
    std::vector<std::pair<int64_t, int64_t>> staged = shapes;
    staged.push_back({16960, 992});
    gpu::detail::gemv_force_staged(1);
    gpu::detail::gemv_staged_seen();  // reset
    check({gpu::Kernel::gemv}, "pdl gemv staged: ", staged, {1});
    gpu::detail::gemv_force_pairs(1);
    check({gpu::Kernel::gemv}, "pdl gemv staged pair tables: ", staged, {1});
    gpu::detail::gemv_force_pairs(0);
    gpu::detail::gemv_force_staged(0);
    const int seen = gpu::detail::gemv_staged_seen();
    CHECK_MESSAGE((seen & 48) == 16, "staged PDL modes reached (16 early, 32 trigger after the loop): ", seen);
  }
  if (!gpu::tcw_supported()) return;
  gpu::detail::tcw_force_plan(2);
  check({gpu::Kernel::tcw}, "pdl stream-K plan: ", shapes, Ms);
  // Above M = 64 (KBIT_TCW_PDL_MAXM): tcw's 64-, 128- and 256-token tiles (tcw_choose_tile's pick at
  // M = 96 and 200, or the default tile with a forced plan), per tile and stream-K.
  check({gpu::Kernel::tcw}, "pdl stream-K plan above 64 tokens: ", shapes, {96, 200});
  gpu::detail::tcw_force_plan(1);
  check({gpu::Kernel::tcw}, "pdl per-tile plan above 64 tokens: ", shapes, {96, 200});
  gpu::detail::tcw_force_plan(0);
  check({gpu::Kernel::tcw}, "pdl above 64 tokens: ", shapes, {96, 200});
}

TEST_CASE("gpu: the balance's pads hold gemv's early kernel to the CTAs per SM asked, and its padded launches stay exact") {
  // KBIT_GEMV_BALANCE: a one-wave early PDL grid at M = 1 of need >= kGemvBalanceMinNeed CTAs per SM asks for unused
  // dynamic shared memory so that no SM can hold more than need of its CTAs (the pad: gemv_balance_pad, checked on the
  // CPU against a model of the occupancy rules in tests/test_gemv_sched.cpp). Here this device's occupancy calculator
  // must give exactly `need` CTAs per SM at each such pad of the k = 2 early kernel, and no pad outside the range.
  int unpadded = 0;
  const int first = gpu::detail::gemv_balance_resident(gpu::detail::kGemvBalanceMinNeed, &unpadded);
  REQUIRE(first != -1);
  if (first == -2) {
    MESSAGE("KBIT_GEMV_BALANCE=0 in the environment: the balance is off, not checked");
    return;
  }
  MESSAGE("gemv's early k = 2 kernel holds ", unpadded, " CTAs per SM unpadded");
  for (int need = gpu::detail::kGemvBalanceMinNeed; need < unpadded && need < 16; ++need)
    CHECK_MESSAGE(gpu::detail::gemv_balance_resident(need, nullptr) == need, "need ", need, " (", unpadded,
                  " unpadded): CTAs per SM at the pad");
  CHECK(gpu::detail::gemv_balance_resident(unpadded, nullptr) == 0);
  CHECK(gpu::detail::gemv_balance_resident(gpu::detail::kGemvBalanceMinNeed - 1, nullptr) == 0);
  // Padded launches under PDL equal the reference bit for bit: Llama-3-70B k_proj (1024 x 8192) and Qwen3-Coder-Next
  // o_proj (2048 x 4096) at k = 2, M = 1, one-wave early grids of 4-5 CTAs per SM on 132 SMs, padded there
  // (bench/results/2026-11-28-h200-balanceland). Staged form off: its kernels take no pad.
  if (!gpu::detail::device_has_pdl()) return;
  Stream st;
  gpu::detail::gemv_force_staged(2);
  const int64_t before = gpu::detail::gemv_balance_launches();
  uint64_t seed = 9700;
  check_pdl_exact(st.s, seed, {gpu::Kernel::gemv}, "pdl gemv balance: ", {{1024, 8192}, {2048, 4096}}, {1}, {2});
  gpu::detail::gemv_force_staged(0);
  const int64_t padded = gpu::detail::gemv_balance_launches() - before;
  if (gpu::detail::device_sm_count() == 132 && unpadded == 5)
    CHECK_MESSAGE(padded == 4, "padded launches (2 shapes x 2 dtypes on 132 SMs): ", padded);
  else
    MESSAGE("padded launches on ", gpu::detail::device_sm_count(), " SMs: ", padded, " of 4");
}

TEST_CASE("gpu: automatic with LinearArgs::pdl takes its PDL dispatch rules and stays exact") {
  // Shapes of the PDL rules of choose_kernel: 2048 x 512 (short narrow rows: gemv at M = 1, tcv's
  // early launch from M = 2, on the H200 from M = 3 at k >= 3), 8960 x 512 (short wide rows: gemv at M = 1), 1024 x 4096 (K >= 4096
  // below 8 M weights: gemv at M = 1, 2, tcv at M = 3..16), 2048 x 5120 (10.5 M weights, tcv's
  // one-wave split grid of 5 slices: gemv at M = 2, tcv's early launch at M = 3..16), 1024 x 8192
  // (8.4 M weights, a one-wave grid of 8 slices: tcv's early launch at M = 3, 4, then tcw), 4096 x
  // 4096 (16.8 M weights, tcv's workspace grid cut to one wave of 3 slices: its early launch at M = 3..8)
  // and 2048 x 10240 (21 M, cut to 6 slices: tcv at M = 4; bench/results/2026-11-27-h100-tcvwave). At
  // k = 3 the short narrow rows go to tcv from M = 2 too (on the H200 from M = 3 at k >= 3); at k = 2 the 21 M shape goes to tcv's pair
  // table at M = 2 but stays on gemv at M = 1 (rows of K > 2048), 16384 x 2048 (34 M) to tcv at M = 1 (to gemv
  // where gemv's activation-sum tables are on: gemv_lut_enabled, bench/results/2026-11-28-h200-lut);
  // at k = 3 4096 x 8192 (34 M, tcv's k = 3 pair table) to tcv at M = 2, gemv at M = 1
  // (bench/results/2026-11-27-h100-daudit). After the second audit (-daudit2) 10240 x 2048 (21 M, no
  // tcv pair table at k = 4) stays on gemv at M = 2, k = 4, and 2048 x 10240 at M = 16 goes to tcv at
  // k = 2, to tcw at k = 4. The
  // choice is checked where the device runs PDL, the result everywhere (the producer writes A late,
  // as in the test above). tcw's own PDL cases: "with PDL, tcw keeps M = 3..8 ..." below.
  Stream st;
  const bool pdl = gpu::detail::device_has_pdl();
  uint64_t seed = 9700;
  struct Case {
    int64_t N, K, M;
    gpu::Kernel want;
    int bits = 4;
  };
  const gpu::Kernel k2_wide_m1 = gpu::detail::gemv_lut_enabled() ? gpu::Kernel::gemv : gpu::Kernel::tcv;
  // The short narrow rows at M = 2, k >= 3 stay on gemv on the H200 (gemv_short_narrow_fast: >= 4,500 GB/s of peak
  // DRAM bandwidth; bench/results/2026-11-28-h200-shortrows).
  const gpu::Kernel narrow_m2 = kbit::gemv_short_narrow_fast(2, 4, true, gpu::detail::device_peak_dram_gbps())
                                    ? gpu::Kernel::gemv
                                    : gpu::Kernel::tcv;
  const std::vector<Case> cases = {{2048, 512, 1, gpu::Kernel::gemv},  {2048, 512, 2, narrow_m2},
                                   {2048, 512, 4, gpu::Kernel::tcv},   {8960, 512, 1, gpu::Kernel::gemv},
                                   {1024, 4096, 1, gpu::Kernel::gemv}, {1024, 4096, 2, gpu::Kernel::gemv},
                                   {1024, 4096, 3, gpu::Kernel::tcv},  {1024, 4096, 16, gpu::Kernel::tcv},
                                   {2048, 5120, 2, gpu::Kernel::gemv}, {2048, 5120, 3, gpu::Kernel::tcv},
                                   {2048, 5120, 8, gpu::Kernel::tcv},  {2048, 5120, 16, gpu::Kernel::tcv},
                                   {4096, 4096, 4, gpu::Kernel::tcv},  {4096, 4096, 8, gpu::Kernel::tcv},
                                   {2048, 10240, 4, gpu::Kernel::tcv},
                                   {1024, 8192, 4, gpu::Kernel::tcv},  {1024, 8192, 8, gpu::Kernel::tcw},
                                   {1024, 8192, 16, gpu::Kernel::tcw},
                                   {2048, 512, 2, narrow_m2, 3}, {2048, 512, 1, gpu::Kernel::gemv, 3},
                                   {2048, 10240, 2, gpu::Kernel::tcv, 2}, {2048, 10240, 1, gpu::Kernel::gemv, 2},
                                   {16384, 2048, 1, k2_wide_m1, 2},    {4096, 8192, 2, gpu::Kernel::tcv, 3},
                                   {4096, 8192, 1, gpu::Kernel::gemv, 3}, {10240, 2048, 2, gpu::Kernel::gemv},
                                   {2048, 10240, 16, gpu::Kernel::tcv, 2}, {2048, 10240, 16, gpu::Kernel::tcw}};
  for (const Case& c : cases) {
    const QuantizedTensor q = make_exact_weights(c.bits, 1, c.N, c.K, seed++);
    const DeviceWeights w(q);
    const std::vector<float> A = make_exact_activations(c.M, c.K, seed++);
    std::vector<float> ref(size_t(c.M * c.N));
    gemm_ref(A.data(), c.M, q.view(), ref.data());
    const Act act = Act::f16;
    const gpu::Kernel chosen = gpu::choose_kernel(c.M, w.view, act, false, true);
    if (pdl && (c.want != gpu::Kernel::tcw || gpu::tcw_supported()))
      CHECK_MESSAGE(chosen == c.want, "N=", c.N, " K=", c.K, " M=", c.M, " k=", c.bits, ": chose ",
                    gpu::kernel_name(chosen));
    const DeviceBuf<uint16_t> src(to_act(act, A));
    DeviceBuf<uint16_t> dA(size_t(c.M * c.K)), dC(size_t(c.M * c.N));
    dA.poison();
    dC.zero();
    DeviceBuf<char> ws(gpu::linear_workspace_bytes(c.M, w.view, act));  // automatic: covers the PDL choice
    ws.zero();
    behind_slow_producer(st.s, src, dA, dC,
                         [&] { REQUIRE(launch_pdl(gpu::Kernel::automatic, act, w, dA.p, dC.p, c.M, ws, st.s, true)); });
    const int64_t bad = first_mismatch(dC.host(), to_act(act, ref));
    CHECK_MESSAGE(bad < 0, "pdl automatic N=", c.N, " K=", c.K, " M=", c.M, " k=", c.bits, ": first wrong element ", bad);
  }
}

TEST_CASE("gpu: under live PDL, k <= 3's short rows take tcw at M = 65..128 (and 129..192 where K > 512)") {
  // choose_kernel with a cuBLAS handle and LinearArgs::pdl: Qwen3 shared_expert.down (2048 x 512) and GLM q_b_proj
  // (5120 x 768), short rows (K < 1024, N < 8192), took dequant_cublas above M = 64 until k = 2 and 3's lone
  // 64-token price moved their tcw plans to 64 tokens (kTcwLone64K2; bench/results/2026-11-28-h200-s46l). k = 4
  // keeps the rule before; K = 512 stays off tcw from M = 129. Then tcw on those shapes under PDL, exact.
  if (!gpu::tcw_supported() || !gpu::detail::device_has_pdl()) return;
  TiledView w;
  w.half_cb = true;
  auto pick = [&](int64_t N, int64_t K, int64_t M, int bits) {
    w.N = N, w.K = K, w.bits = bits;
    return gpu::choose_kernel(M, w, Act::f16, true, true);
  };
  for (int bits : {2, 3}) {
    if (!gpu::detail::tcw_pdl_above64(bits)) continue;
    CAPTURE(bits);
    const bool on = gpu::detail::tcw_short_rows_pdl();  // KBIT_TCW_SHORT_PDL=0 turns it off
    CHECK((pick(2048, 512, 96, bits) == gpu::Kernel::tcw) == on);
    CHECK((pick(2048, 512, 128, bits) == gpu::Kernel::tcw) == on);
    CHECK((pick(5120, 768, 80, bits) == gpu::Kernel::tcw) == on);
    CHECK((pick(5120, 768, 160, bits) == gpu::Kernel::tcw) == on);
    CHECK(pick(2048, 512, 160, bits) != gpu::Kernel::tcw);  // K = 512 above M = 128: 0.94-0.99x there
  }
  if (gpu::detail::tcw_pdl_above64(4)) CHECK(pick(2048, 512, 96, 4) != gpu::Kernel::tcw);
  Stream st;
  uint64_t seed = 9850;
  check_pdl_exact(st.s, seed, {gpu::Kernel::tcw}, "pdl tcw, short rows: ", {{2048, 512}, {5120, 768}}, {96, 160}, {2, 3});
}

TEST_CASE("gpu: a chain of linear() calls with LinearArgs::pdl gives the results of the plain calls") {
  // y = W2 (W1 x) with x written by a slow producer, every call with the flag (each launch also lets
  // the next one start early), against the same chain without it: equal bit for bit. 1024 x 1024
  // and 768 x 768 take gemv's and tcv's cluster and one-pass plans at M = 1..16 and tcw at M = 32, 64
  // (64-token tiles under PDL: k = 3's tcw_kernel with its padded shared memory, k = 4, 5) and tcw at
  // M = 128, 256 (128- and 256-token tiles under PDL, KBIT_TCW_PDL_BIG, or smaller ones tcw_choose_tile took);
  // 2048 x 2048 gemv's workspace grid that loads weights before the wait (gemv_early_launch) at M = 1, 2.
  // (Only shapes whose kernel and plan PDL leaves as they are: 512 x 512 takes gemv_pdl_plan's unsplit
  // grid at M = 1 and gemv at M = 4, whose sums round differently from the plain calls'. The PDL
  // doctest above checks those plans against the CPU reference.)
  Stream st;
  uint64_t seed = 9900;
  for (int64_t D : {768, 1024, 2048})
    for (int bits : {3, 4, 5}) {
      const QuantizedTensor q1 = random_weights(bits, 1, D, D, seed++), q2 = random_weights(bits, 1, D, D, seed++);
      const DeviceWeights w1(q1), w2(q2);
      for (int64_t M : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
        Rng rng(seed++);
        std::vector<float> x(size_t(M * D));
        for (auto& v : x) v = float(rng.uniform()) - 0.5f;
        const Act act = Act::f16;
        const DeviceBuf<uint16_t> src(to_act(act, x));
        std::vector<uint16_t> out[2];
        for (int pdl : {0, 1}) {
          DeviceBuf<uint16_t> dA(size_t(M * D)), h(size_t(M * D)), y(size_t(M * D));
          dA.poison();
          h.poison();
          y.poison();
          // (Both chains run the kernel dispatch gives the PDL one: launched plainly, automatic takes tcv at
          // M = 9..16 on some of these shapes since the forty-seventh session, tcw under PDL.)
          const gpu::Kernel kernel = D == 2048 && M <= 2 ? gpu::Kernel::gemv
                                     : M > 64 && gpu::tcw_supported()
                                         ? gpu::Kernel::tcw
                                         : gpu::choose_kernel(M, w1.view, act, false, true);
          const size_t wsb = std::max(gpu::linear_workspace_bytes(M, w1.view, act, kernel),
                                      gpu::linear_workspace_bytes(M, w2.view, act, kernel));
          DeviceBuf<char> ws1(wsb), ws2(wsb);
          ws1.zero();
          ws2.zero();
          behind_slow_producer(st.s, src, dA, y, [&] {
            REQUIRE(launch_pdl(kernel, act, w1, dA.p, h.p, M, ws1, st.s, pdl));
            REQUIRE(launch_pdl(kernel, act, w2, h.p, y.p, M, ws2, st.s, pdl));
          });
          out[pdl] = y.host();
        }
        bool nan = false;
        for (uint16_t v : out[0]) nan |= std::isnan(from_act(act, v));
        CHECK_MESSAGE(!nan, "D=", D, " k=", bits, " M=", M, ": the plain chain left NaN");
        const int64_t bad = first_mismatch(out[1], out[0]);
        CHECK_MESSAGE(bad < 0, "pdl chain D=", D, " k=", bits, " M=", M, ": first differing element ", bad);
      }
    }
}

TEST_CASE("gpu: MoE dispatch keeps grouped_gemv up to 16 rows at k = 5 only, on short or wide rows (20 on long or short ones)") {
  // choose_moe_kernel reads only the shape. Qwen3-Coder-Next experts.down (512 experts of 2048 x 512):
  // at 10 routed rows (M = 1) grouped_tcv from k = 2 to 4, grouped_gemv at k = 5
  // (bench/results/2026-11-27-h100-moeshort); past 16 rows grouped_tcv at every width. GLM-4.7-Flash
  // experts.down and gate_up (64 experts of 2048 x 1536 and 3072 x 2048): grouped_gemv at k = 5 up to
  // 16 rows (M = 4); Qwen3 experts.gate_up (1024 x 2048) stays on grouped_tcv at 10 rows
  // (bench/results/2026-11-27-h100-daudit2). Since bench/results/2026-11-28-h100-moesmall-s39 the rows of K >= 2048
  // (both experts.gate_up) keep grouped_gemv at k = 5 up to 20 rows, and since -h200-final-s40 the rows of K <= 512
  // (Qwen3 experts.down) too; GLM experts.down (K = 1536) goes to grouped_tcv past 16 rows. On the H200 (>= 4,500 GB/s
  // of peak DRAM bandwidth) Qwen3 experts.down keeps grouped_gemv at k = 3, 4 up to 10 rows (-h200-moem1).
  TiledView w;
  w.half_cb = true;  // as kbit-quantize writes them
  struct Case {
    int64_t E, N, K;
  };
  for (const Case c : {Case{512, 2048, 512}, Case{64, 2048, 1536}, Case{64, 3072, 2048}, Case{512, 1024, 2048}}) {
    w.E = c.E;
    w.N = c.N;
    w.K = c.K;
    const bool gemv_shape = c.K <= 512 || c.N >= 2048;
    for (int bits : {2, 3, 4, 5}) {
      CAPTURE(c.N);
      CAPTURE(c.K);
      CAPTURE(bits);
      w.bits = bits;
      const gpu::MoeKernel small = bits == 5 && gemv_shape ? gpu::MoeKernel::grouped_gemv : gpu::MoeKernel::grouped_tcv;
      // On the H200 also k = 3, 4 on the short rows up to 10 routed rows (moe_gemv_short_fast,
      // bench/results/2026-11-28-h200-moem1).
      const double gbps = gpu::detail::device_peak_dram_gbps();
      for (int64_t rows : {4, 10})
        CHECK(gpu::choose_moe_kernel(rows, w, Act::f16, 0) ==
              (kbit::moe_gemv_short_fast(c.E, rows, bits, c.K, gbps) ? gpu::MoeKernel::grouped_gemv : small));
      if (c.E == 512 && c.K == 512 && kbit::fast_dram(gbps) && (bits == 3 || bits == 4))
        CHECK(gpu::choose_moe_kernel(10, w, Act::f16, 0) == gpu::MoeKernel::grouped_gemv);  // the measured row
      CHECK(gpu::choose_moe_kernel(16, w, Act::f16, 0) == small);
      // 17..20 rows at k = 5 on rows of K >= 2048 (both experts.gate_up; bench/results/2026-11-28-h100-moesmall-s39)
      // or K <= 512 (Qwen3 experts.down; bench/results/2026-11-28-h200-final-s40).
      const bool k5_20 = bits == 5 && (c.K >= 2048 || c.K <= 512);
      const gpu::MoeKernel at20 = k5_20 ? gpu::MoeKernel::grouped_gemv : gpu::MoeKernel::grouped_tcv;
      CHECK(gpu::choose_moe_kernel(20, w, Act::f16, 0) == at20);
      CHECK(gpu::choose_moe_kernel(24, w, Act::f16, 0) == gpu::MoeKernel::grouped_tcv);
    }
  }
}

TEST_CASE("gpu: automatic keeps short narrow rows on gemv at M = 1 and, on the H200, at M = 2 under PDL from k = 3") {
  // choose_kernel reads only the shape. Qwen3-Coder-Next shared_expert.down (2048 x 512): gemv at M = 1 but at k = 2
  // without PDL, where tcv's pair table wins on the H100 and gemv on the H200; under PDL tcv's early launch from
  // M = 2, but at k >= 3 on the H200 (gemv_short_narrow_fast; bench/results/2026-11-28-h200-shortrows).
  TiledView w;
  w.N = 2048;
  w.K = 512;
  w.half_cb = true;  // as kbit-quantize writes them
  const double gbps = gpu::detail::device_peak_dram_gbps();
  const bool pdl = gpu::detail::device_has_pdl();
  MESSAGE("peak DRAM bandwidth ", gbps, " GB/s: the H200's short-row rules ", std::string(gbps >= 4500.0 ? "on" : "off"));
  for (int bits = 2; bits <= 5; ++bits) {
    CAPTURE(bits);
    w.bits = bits;
    const bool k2_gemv = kbit::gemv_short_narrow_fast(1, bits, false, gbps);
    CHECK(gpu::choose_kernel(1, w, Act::f16, false, false) ==
          (bits >= 3 || k2_gemv ? gpu::Kernel::gemv : gpu::Kernel::tcv));
    if (pdl) {
      CHECK(gpu::choose_kernel(1, w, Act::f16, false, true) == gpu::Kernel::gemv);
      CHECK(gpu::choose_kernel(2, w, Act::f16, false, true) ==
            (kbit::gemv_short_narrow_fast(2, bits, true, gbps) ? gpu::Kernel::gemv : gpu::Kernel::tcv));
      CHECK(gpu::choose_kernel(3, w, Act::f16, false, true) == gpu::Kernel::tcv);
    }
  }
}

TEST_CASE("gpu: automatic gives the widest one-pass shapes to gemv at M = 1 from k = 3") {
  // choose_kernel reads only the shape (no memory allocated). Qwen3-Coder-Next dense.gate_up
  // (10240 x 2048, 21 M weights): gemv at M = 1 for k = 3..5, tcv at k = 2 and at M = 2 but at k = 4
  // with live PDL (gemv, bench/results/2026-11-27-h100-daudit2); its q_proj (4096 x 2048, 8.4 M) stays
  // on tcv (bench/results/2026-11-26-h100-record-s16) unless PDL is live (gemv from k = 3). At k = 2 gemv takes
  // dense.gate_up at M = 1 back where its activation-sum tables are on (gemv_lut_enabled; -h200-lut), and q_proj
  // without PDL (-h200-lutland) and with it on the H200 where the balance is on (-h200-checks-s43); so on the H100
  // q_proj at k = 2 goes to gemv without PDL (the tables) and to tcv with it.
  TiledView w;
  w.N = 10240;
  w.K = 2048;
  w.half_cb = true;  // as kbit-quantize writes them (tcv's pair tables, hence its occupancy and plan)
  const bool h100 = gpu::detail::device_sm_count() == 132;
  for (bool pdl : {false, true}) {
    CAPTURE(pdl);
    for (int bits : {2, 3, 4, 5}) {
      CAPTURE(bits);
      w.bits = bits;
      // tcv where its one-pass plan holds. The plan depends on the GPU; on 132 SMs (H100, H200) it
      // must hold for all three cases, so the guarded checks below cannot skip there.
      const bool pass1 = gpu::detail::tcv_plan_of(1, w, Act::f16).short_k;
      const bool pass2 = gpu::detail::tcv_plan_of(2, w, Act::f16).short_k;
      w.N = 4096;
      const bool pass_q = gpu::detail::tcv_plan_of(1, w, Act::f16).short_k;
      if (h100) {
        CHECK(pass1);
        CHECK(pass2);
        CHECK(pass_q);
      }
      // With live PDL gemv's early launch takes q_proj at k >= 3 (bench/results/2026-11-26-h100-gemvearly).
      const bool pdl_live = pdl && gpu::detail::device_has_pdl();
      const bool lut = gpu::detail::gemv_lut_enabled();
      // At k = 2 the tables take q_proj without PDL, and with it on the H200 where the balance evens out its early
      // grid (gemv_balance_enabled; bench/results/2026-11-28-h200-checks-s43).
      const bool lut_q = bits == 2 && lut &&
                         (!pdl_live || (gpu::detail::gemv_balance_enabled() &&
                                        kbit::fast_dram(gpu::detail::device_peak_dram_gbps())));
      if (pass_q)
        CHECK(gpu::choose_kernel(1, w, Act::f16, false, pdl) ==
              ((pdl_live && bits >= 3) || lut_q ? gpu::Kernel::gemv : gpu::Kernel::tcv));
      w.N = 10240;
      const gpu::Kernel one_pass = pass1 ? gpu::Kernel::tcv : gpu::Kernel::gemv;
      const bool gemv_m1 = bits >= 3 || lut;
      CHECK(gpu::choose_kernel(1, w, Act::f16, false, pdl) == (gemv_m1 ? gpu::Kernel::gemv : one_pass));
      if (pass2)
        CHECK(gpu::choose_kernel(2, w, Act::f16, false, pdl) ==
              (pdl_live && bits == 4 ? gpu::Kernel::gemv : gpu::Kernel::tcv));
    }
  }
}

TEST_CASE("gpu: under PDL an SM holds no more of tcw's CTAs than the plan counted") {
  // A PDL grid starts while the work before it drains and the CTA scheduler fills whatever room an
  // SM has, so a kernel that fits more CTAs per SM than the plan counts is launched with padded shared
  // memory under PDL (tcw_pads). The plan counts what the stream-K kernel holds (it once counted 1 by a
  // failed query, 48 KB dynamic + the static arrays without the opt-in, where k = 2's 64-token kernel
  // holds 2: bench/results/2026-11-27-h100-occfix), unless its CTAs would run fewer than
  // kTcwSharedSmMinSteps steps at 64-token tiles and up (tcw_slots): then 1. Checked on the occupancy
  // the plan's kernel gets (tcw_occupancy decides as launch_t does), every tile and width, on a shape
  // of 64 steps (Llama-3-70B q_proj) and one of 4 (GLM kv_b_proj); only the shape's size reaches the
  // plan (no memory allocated).
  if (!gpu::tcw_supported()) return;
  int padded = 0;
  std::string which, plans;
  for (const auto& [N, K] : {std::pair<int64_t, int64_t>{8192, 8192}, {8960, 512}})
    for (int bits = 2; bits <= 5; ++bits)
      for (bool half_cb : {false, true})
        for (int64_t M : {32, 64, 128, 256}) {
          TiledView w;
          w.bits = bits;
          w.N = N;
          w.K = K;
          w.half_cb = half_cb;
          const gpu::detail::TcwOccupancy plain = gpu::detail::tcw_occupancy(M, w, false);
          const gpu::detail::TcwOccupancy pdl = gpu::detail::tcw_occupancy(M, w, true);
          INFO("N=", N, " K=", K, " k=", bits, " half_cb=", half_cb, " M=", M, ": plan ", pdl.plan,
               pdl.stream_k ? " (stream-K)" : " (per tile)", ", stream-K kernel ", pdl.streamk, ", resident ",
               plain.resident, " (smem ", plain.smem, "), under PDL ", pdl.resident, " (smem ", pdl.smem, ")");
          CHECK(pdl.plan >= 1);
          CHECK(pdl.plan <= pdl.streamk);
          CHECK((pdl.plan == pdl.streamk || pdl.plan == 1));
          if (K == 8192) CHECK(pdl.plan == pdl.streamk);  // >= 16 steps a CTA: no fallback
          plans += " " + std::to_string(pdl.plan);
          CHECK(plain.resident >= 1);
          CHECK(pdl.resident <= pdl.plan);
          CHECK(pdl.smem >= plain.smem);
          if (pdl.smem > plain.smem) {
            ++padded;
            which += " N=" + std::to_string(N) + "/k=" + std::to_string(bits) + (half_cb ? "/half_cb" : "") +
                     " M=" + std::to_string(M) + " (" + std::to_string(plain.smem) + " -> " +
                     std::to_string(pdl.smem) + " bytes)";
            CHECK(plain.resident > pdl.plan);  // padded only where the plain launch would hold more
          }
        }
  MESSAGE("tcw launches padded under PDL: ", padded, " of 64:", which);
  MESSAGE("the plans' CTAs per SM (N = 8192 then 8960; k = 2..5, half_cb no/yes, M = 32, 64, 128, 256):", plans);
}

TEST_CASE("gpu: with PDL, tcw keeps M = 3..8 from 32 M weights only at k = 4 on tcv's split grids (and M = 2, 9..16)") {
  // choose_kernel reads only the shape (no memory allocated). From 32 M weights at M = 3..8 tcv at
  // k = 2, 3, 5 and tcw at k = 4 where tcv's grid is split: Llama-3-8B down (4096 x 14336, 58.7 M;
  // 768 CTAs of 3 slices on an H100) at M = 5..8. Llama-3-70B q_proj (8192 x 8192, 67 M), whose grid
  // is 512 CTAs of one slice on an H100, goes to tcv at every k (bench/results/2026-11-26-h100-
  // record-s17, -tcvm8, bench/results/2026-11-27-h100-tcvwave). Below 32 M GLM shared_experts.down
  // (2048 x 10240, tcv's grid cut to one wave of 6 slices on an H100) goes to tcv at M = 4 and at
  // M = 8 but at k = 4, at M = 16 (4 steps per warp) to tcv at k = 2, 3 and to tcw at k = 4, 5
  // (bench/results/2026-11-27-h100-daudit2), and Llama-3-70B k_proj (1024 x 8192, tcv's early grid of
  // 8 slices) goes to tcv at M = 5..8 but at k = 4. GLM shared_experts.gate_up (20480 x 2048, 42 M,
  // the M = 9..16 exclusion of N >= 16384 below 100 M weights) goes to tcv at M = 16 at every k.
  // Since the audit of 2026-11-28 (bench/results/2026-11-28-h100-audit-s38, -final-s38): Llama-3-70B q_proj goes to
  // tcv at M = 9..12 at k = 2, 3 as well (rows of K >= 8192 only: Llama-3-8B mlp.gate, 14336 x 4096, stays on tcw),
  // and at M = 2 tcv takes k = 4 on rows of N = 8192..16383 with K >= 8192 (Llama-3-70B q_proj, down). Since its
  // leads were measured at every M = 9..16 (bench/results/2026-11-28-h100-leads-s39), the crossovers checked below.
  if (!gpu::detail::device_has_pdl() || !gpu::tcw_supported()) return;
  const bool h100 = gpu::detail::device_sm_count() == 132;  // there no case below may skip
  TiledView w;
  w.half_cb = true;
  // The choice at M on this shape, where tcv's plan is not a latency plan (which takes precedence).
  auto check = [&](int64_t N, int64_t K, int64_t M, gpu::Kernel want) {
    w.N = N;
    w.K = K;
    const bool latency = tcv_latency(gpu::detail::tcv_plan_of(M, w, Act::f16));
    if (h100) CHECK_FALSE(latency);
    if (!latency) CHECK_MESSAGE(gpu::choose_kernel(M, w, Act::f16, false, true) == want, "N=", N, " K=", K, " M=", M);
  };
  for (int bits : {2, 3, 4, 5}) {
    CAPTURE(bits);
    w.bits = bits;
    const gpu::Kernel big = bits == 4 ? gpu::Kernel::tcw : gpu::Kernel::tcv;
    if (h100) {
      for (int64_t M : {3, 4, 6, 8}) {
        w.N = 8192;
        w.K = 8192;
        CHECK(tcv_unsplit_wave(gpu::detail::tcv_plan_of(M, w, Act::f16)));
        check(8192, 8192, M, gpu::Kernel::tcv);
        w.N = 4096;
        w.K = 14336;
        CHECK_FALSE(tcv_unsplit_wave(gpu::detail::tcv_plan_of(M, w, Act::f16)));
        if (M >= 5) check(4096, 14336, M, big);
      }
      // M = 9..12 at k = 2, 3 (bench/results/2026-11-28-h100-audit-s38): Llama-3-70B q_proj to tcv; M = 16 to tcw.
      w.N = 8192;
      w.K = 8192;
      CHECK(tcv_unsplit_wave(gpu::detail::tcv_plan_of(12, w, Act::f16)));
      check(8192, 8192, 9, bits != 4 ? gpu::Kernel::tcv : gpu::Kernel::tcw);  // k = 5 at M = 9 since -leads-s39
      check(8192, 8192, 12, bits <= 3 ? gpu::Kernel::tcv : gpu::Kernel::tcw);
      check(8192, 8192, 16, gpu::Kernel::tcw);
      check(14336, 4096, 12, gpu::Kernel::tcw);  // Llama-3-8B mlp.gate: K < 8192, unmeasured at M = 9..12
      // The crossovers of -leads-s39 (every M = 9..16). Llama-3-70B q_proj: k = 2, 3 up to M = 15.
      const gpu::Kernel tcv_k23 = bits <= 3 ? gpu::Kernel::tcv : gpu::Kernel::tcw;
      check(8192, 8192, 13, tcv_k23);
      check(8192, 8192, 15, tcv_k23);
      check(8192, 8192, 10, tcv_k23);  // k = 5 from M = 10 on tcw
      // Llama-3-70B k_proj (8 slices, 2 steps per warp): tcv at k = 3 to M = 12, at k = 2 to M = 10.
      check(1024, 8192, 10, bits <= 3 ? gpu::Kernel::tcv : gpu::Kernel::tcw);
      check(1024, 8192, 11, bits == 3 ? gpu::Kernel::tcv : gpu::Kernel::tcw);
      check(1024, 8192, 12, bits == 3 ? gpu::Kernel::tcv : gpu::Kernel::tcw);
      check(1024, 8192, 13, gpu::Kernel::tcw);
      // Llama-3-8B q_proj (2-slice early grid) and k_proj (< 8 M weights): tcw at M = 15, 16 at k = 2, M = 16 at
      // k = 3; q_proj keeps tcw at k = 4, 5 (4 steps per warp), k_proj tcv there.
      w.N = 4096;
      w.K = 4096;
      CHECK(tcv_early_splits(gpu::detail::tcv_plan_of(16, w, Act::f16)) == 2);
      check(4096, 4096, 14, bits <= 3 ? gpu::Kernel::tcv : gpu::Kernel::tcw);
      check(4096, 4096, 15, bits == 3 ? gpu::Kernel::tcv : gpu::Kernel::tcw);
      check(4096, 4096, 16, gpu::Kernel::tcw);
      check(1024, 4096, 14, gpu::Kernel::tcv);
      check(1024, 4096, 15, bits == 2 ? gpu::Kernel::tcw : gpu::Kernel::tcv);
      check(1024, 4096, 16, bits <= 3 ? gpu::Kernel::tcw : gpu::Kernel::tcv);
      // Qwen3 o_proj (2048 x 4096, tcv's wide cluster grid): tcv at M = 9..15 at k = 3 only (-final-s39).
      w.N = 2048;
      w.K = 4096;
      CHECK(tcv_wide_cluster(gpu::detail::tcv_plan_of(12, w, Act::f16)));
      for (int64_t M : {9, 12, 15}) check(2048, 4096, M, bits == 3 ? gpu::Kernel::tcv : gpu::Kernel::tcw);
      // From 100 M weights on rows of N >= 16384 with K <= 4096 or N >= 32768 (Llama-3-8B and Llama-3-70B gate_up):
      // tcv at M = 9, 10 at k = 3, 5.
      for (const auto& [N, K] : {std::pair<int64_t, int64_t>{28672, 4096}, {57344, 8192}}) {
        const gpu::Kernel k35 = bits == 3 || bits == 5 ? gpu::Kernel::tcv : gpu::Kernel::tcw;
        check(N, K, 9, k35);
        check(N, K, 10, k35);
        check(N, K, 11, gpu::Kernel::tcw);
      }
      check(28672, 8192, 9, gpu::Kernel::tcw);  // Llama-3-70B mlp.gate (235 M, not a block shape): unmeasured
      // M = 2 (-audit-s38): tcv at k = 2, 3 (its pair tables, from 16 / 32 M weights), at k = 4 only on rows of
      // N = 8192 and K >= 8192 (Llama-3-70B q_proj, down), gemv at k = 5 and on the other k = 4 rows (Llama-3-70B
      // gate_up, Llama-3-8B down).
      for (const auto& [N, K, wide_k4] : {std::tuple<int64_t, int64_t, bool>{8192, 8192, true},
                                          {8192, 28672, true},
                                          {57344, 8192, false},
                                          {4096, 14336, false}}) {
        w.N = N;
        w.K = K;
        const gpu::Kernel m2 = bits <= 3 || (bits == 4 && wide_k4) ? gpu::Kernel::tcv : gpu::Kernel::gemv;
        CHECK_MESSAGE(gpu::choose_kernel(2, w, Act::f16, false, true) == m2, "N=", N, " K=", K, " M=2");
      }
      check(2048, 10240, 4, gpu::Kernel::tcv);
      check(2048, 10240, 8, big);
      check(2048, 10240, 16, bits <= 3 ? gpu::Kernel::tcv : gpu::Kernel::tcw);
      check(20480, 2048, 16, gpu::Kernel::tcv);
      w.N = 1024;
      w.K = 8192;
      CHECK(tcv_early_splits(gpu::detail::tcv_plan_of(8, w, Act::f16)) == 8);
      CHECK(gpu::choose_kernel(8, w, Act::f16, false, true) == big);
      CHECK(gpu::choose_kernel(4, w, Act::f16, false, true) == gpu::Kernel::tcv);
      CHECK(gpu::choose_kernel(16, w, Act::f16, false, true) == gpu::Kernel::tcw);
    }
  }
}

namespace {

// choose_kernel's cluster rule (kernels/api.cu) at M on w, f16: within its bounds (8 M weights at M = 129..256,
// 16 M at 257..512, k = 5 there only above M = 320) where tcw's plan runs cluster slices on this GPU.
bool cluster_rule_takes_tcw(const TiledView& w, int64_t M, bool pdl) {
  const bool bounds = M > 128 && M <= 512 && double(w.N) * double(w.K) >= (M <= 256 ? 8e6 : 16e6) &&
                      (M <= 256 || M > 320 || w.bits <= 4);
  return bounds && gpu::detail::tcw_cluster_slices(M, w, Act::f16, pdl);
}

}  // namespace

TEST_CASE("gpu: the dense k = 3 tcv takes its pair table from 8 M weights at M <= 4 (from 32 M to M = 6); dispatch's M = 2 rule keeps 32 M") {
  // kTcvPairs3MinWeights (bench/results/2026-11-28-h200-s47p, -s47l): 8-32 M weights gained 1.03-1.09x on the table at
  // M = 2..4; k = 4 keeps kTcvPairsMinWeights. kTcvPairs3MaxMBig (-s47k): from 32 M the table serves M = 5, 6 too.
  // The expectations are the default rule's: the A/B knobs change it, so the test stands aside where one is set.
  for (const char* knob : {"KBIT_TCV_PAIRS", "KBIT_TCV_PAIRS3", "KBIT_TCV_PAIRS3_MAXM"})
    if (std::getenv(knob) != nullptr) {
      MESSAGE(knob, " is set: the default rule is not in force, nothing checked");
      return;
    }
  TiledView w;
  w.half_cb = true;
  auto pairs = [&](int bits, int64_t N, int64_t K, int64_t M) {
    w.bits = bits, w.N = N, w.K = K;
    return gpu::detail::tcv_uses_pairs(w, false, M);
  };
  CHECK(pairs(3, 1024, 8192, 2));         // Llama-3-70B k_proj, 8.4 M
  CHECK(pairs(3, 4096, 4096, 4));         // Llama-3-8B q_proj, 16.8 M
  CHECK(pairs(3, 4096, 4096, 1));
  CHECK_FALSE(pairs(3, 4096, 4096, 5));   // below 32 M the table serves M <= kTcvPairs3MaxM only
  CHECK_FALSE(pairs(3, 4096, 4096, 8));
  CHECK_FALSE(pairs(3, 1024, 4096, 2));   // Llama-3-8B k_proj, 4.2 M: below the bound
  CHECK_FALSE(pairs(4, 4096, 4096, 2));   // k = 4 from 32 M
  CHECK(pairs(4, 8192, 8192, 2));
  CHECK(pairs(3, 8192, 8192, 2));
  CHECK(pairs(3, 8192, 8192, 5));         // from 32 M to kTcvPairs3MaxMBig
  CHECK(pairs(3, 8192, 8192, 6));
  CHECK_FALSE(pairs(3, 8192, 8192, 7));
  w.half_cb = false;
  CHECK_FALSE(pairs(3, 8192, 8192, 2));   // the table needs fp16-normal codebooks
  w.half_cb = true;
  // Dispatch under live PDL at M = 2, k = 3 does not follow the table below 32 M: gemv stayed ahead there.
  if (!gpu::detail::device_has_pdl()) return;
  w.bits = 3, w.N = 1024, w.K = 8192;
  CHECK(gpu::choose_kernel(2, w, Act::f16, true, true) == gpu::Kernel::gemv);
  w.N = 8192;
  CHECK(gpu::choose_kernel(2, w, Act::f16, true, true) == gpu::Kernel::tcv);  // 67 M, on the table: tcv
}

TEST_CASE("gpu: launched plainly, M = 3..16 below 32 M weights runs tcv (at M = 9..16: k <= 3; k = 4, 5 below 12 M to M = 12; k = 5 to M = 10)") {
  // bench/results/2026-11-28-h200-s47x: launched plainly tcw lost to tcv on Llama-3-8B q/o_proj, qkv_proj and GLM
  // shared_experts.down at M = 3..8, k = 2..5 (1.03-1.58x, one tie at M = 8, k = 4); -s47m, -s47n: at M = 9..16 too
  // below 32 M weights at k <= 3, and at k = 4, 5 below 12 M to M = 12 (k = 5 to M = 10 on 12-32 M).
  // KBIT_TCW_MID_PLAIN=1 restores tcw there (tcw_mid_plain).
  if (!gpu::tcw_supported()) return;
  TiledView w;
  w.half_cb = true;
  const bool old_rule = gpu::detail::tcw_mid_plain();
  for (int bits : {2, 3, 4, 5})
    for (const auto& [N, K] : std::vector<std::pair<int64_t, int64_t>>{{4096, 4096}, {6144, 4096}, {2048, 10240}})
      for (int64_t M : {3, 4, 5, 8}) {
        w.bits = bits, w.N = N, w.K = K;
        CAPTURE(bits);
        CAPTURE(N);
        CAPTURE(K);
        CAPTURE(M);
        CHECK(gpu::choose_kernel(M, w, Act::f16, true, false) == (old_rule ? gpu::Kernel::tcw : gpu::Kernel::tcv));
      }
  // M = 9..16: Llama-3-8B q_proj (16.8 M) and Llama-3-70B k_proj (8.4 M).
  auto plain = [&](int bits, int64_t N, int64_t K, int64_t M) {
    w.bits = bits, w.N = N, w.K = K;
    return gpu::choose_kernel(M, w, Act::f16, true, false);
  };
  const gpu::Kernel moved = old_rule ? gpu::Kernel::tcw : gpu::Kernel::tcv;
  for (int64_t M : {9, 12, 16}) {
    CAPTURE(M);
    CHECK(plain(2, 4096, 4096, M) == moved);
    CHECK(plain(3, 4096, 4096, M) == moved);
    CHECK(plain(4, 4096, 4096, M) == gpu::Kernel::tcw);  // k = 4 from 12 M: tcw's pair table
    CHECK(plain(3, 1024, 8192, M) == moved);
  }
  CHECK(plain(4, 1024, 8192, 12) == moved);
  CHECK(plain(5, 1024, 8192, 12) == moved);
  CHECK(plain(4, 1024, 8192, 14) == gpu::Kernel::tcw);
  CHECK(plain(5, 4096, 4096, 10) == moved);
  CHECK(plain(5, 4096, 4096, 11) == gpu::Kernel::tcw);
  CHECK(plain(2, 8192, 8192, 12) == gpu::Kernel::tcw);  // from 32 M: as before
  // Below 12 M weights and from 32 M the plain rules at M <= 8 are as before: Llama-3-70B k_proj (8.4 M) on tcv at
  // M = 4, Llama-3-8B down (58.7 M) on tcw at M = 8, k = 4 on the pair table (rows of K >= 4096).
  w.bits = 4, w.N = 1024, w.K = 8192;
  CHECK(gpu::choose_kernel(4, w, Act::f16, true, false) == gpu::Kernel::tcv);
  w.N = 4096, w.K = 14336;
  if (gpu::detail::tcw_uses_pairs(w)) CHECK(gpu::choose_kernel(8, w, Act::f16, true, false) == gpu::Kernel::tcw);
}

TEST_CASE("gpu: with PDL, tcw takes M = 65..576 from dequant_cublas but on short narrow rows") {
  // choose_kernel reads only the shape (no memory allocated). Under live PDL tcw launches above M = 64
  // (tcw_pdl_above64) and beat dequant_cublas (bench/results/2026-11-27-h100-pdlbig, -pdlland): at
  // M = 65..128 on every catalogue shape but rows of K < 1024 narrower than 8192 (at k <= 3 on those too since
  // the lone 64-token price, bench/results/2026-11-28-h200-s46s), at 129..192 on those of K > 512, at 193..256 on
  // rows of K >= 4096; at k <= 4 at 257..384 on rows of N >= 8192 of 16-24 M weights
  // (to 320 from 24 M) and at 321..448 on rows of K >= 8192 from 8 M weights (-late3san/pdl, -pdl448). Since
  // tcw's 160- and 224-token tiles (bench/results/2026-11-28-h100-widthsland), at k <= 4 from 8 M weights also at
  // 129..320 on rows of K >= 2048 and N >= 4096 and at 257..448 on rows of K >= 4096, and from 4 M at 513..576 on
  // rows of K >= 4096 and N <= 1024 and of K >= 5120 and N <= 2048 (-widthsdisp). At k <= 3 also the small narrow
  // rows (N <= 1024, K >= 2048) at 193..256, and those of K >= 4096 at 257..320 (-s47d). Without
  // PDL, and elsewhere above M = 256, these shapes stay on dequant_cublas, but where tcw's plan runs cluster
  // slices (the cluster test below; on the H100 Llama-3-8B q_proj at M = 320, Qwen3 q_proj at 256, and at 192
  // for k = 2, 3).
  if (!gpu::detail::device_has_pdl() || !gpu::tcw_supported()) return;
  TiledView w;
  w.half_cb = true;
  struct Case {
    int64_t N, K, M;
    gpu::Kernel pdl;
    bool k5_dq = false;     // at k = 5: dequant_cublas instead of pdl
    bool short_k3 = false;  // at k <= 3: tcw instead of pdl (short rows, since the lone 64-token price: -s46l)
    bool small_k3 = false;  // at k <= 3: tcw instead of pdl (N <= 1024, K >= 2048: -s47d)
  };
  const gpu::Kernel tcw = gpu::Kernel::tcw, dq = gpu::Kernel::dequant_cublas;
  const Case cases[] = {
      {512, 2048, 96, tcw},    {512, 2048, 192, tcw},   {512, 2048, 256, dq, false, false, true},  // Qwen3 k_proj
      {512, 2048, 288, dq},    {768, 2048, 224, dq, false, false, true},          // GLM q_a_proj
      {1024, 2048, 256, dq, false, false, true}, {1024, 2048, 288, dq},          // Qwen3 shared_expert.gate_up
      {2048, 512, 96, dq, false, true}, {2048, 512, 192, dq},                     // Qwen3 shared_expert.down
      {5120, 768, 128, dq, false, true},                                          // GLM q_b_proj
      {8960, 512, 128, tcw},   {8960, 512, 192, dq},    {8960, 512, 256, dq},    // GLM kv_b_proj
      {2048, 4096, 192, tcw},  {2048, 4096, 256, tcw},  {2048, 4096, 320, tcw, true},  // Qwen3 o_proj
      {2048, 4096, 576, dq},   {2048, 4096, 1024, dq},
      {1024, 4096, 256, tcw},  {1024, 4096, 320, dq, false, false, true},         // Llama-3-8B k_proj
      {1024, 4096, 352, dq},   {1024, 4096, 384, dq},   {1024, 4096, 576, tcw, true},
      {1024, 4096, 640, dq},
      {4096, 2048, 192, tcw},  {4096, 2048, 256, tcw, true}, {4096, 2048, 384, dq},  // Qwen3 q_proj
      {2048, 5120, 576, tcw, true},                                               // Qwen3 dense.down
      {10240, 2048, 288, tcw, true}, {10240, 2048, 384, tcw, true}, {10240, 2048, 448, dq},  // Qwen3 dense.gate_up
      {12288, 2048, 320, tcw, true}, {12288, 2048, 352, dq},                      // Qwen3 in_proj_qkvz, 25 M
      {4096, 4096, 320, tcw, true}, {4096, 4096, 576, dq},                       // Llama-3-8B q_proj, 16.8 M
      {1024, 8192, 288, tcw, true}, {1024, 8192, 352, tcw, true}, {1024, 8192, 448, tcw, true},  // Llama-3-70B k_proj
      {1024, 8192, 512, dq},   {512, 8192, 384, dq},                              // (and 4.2 M: none)
  };
  for (int bits : {2, 3, 4, 5})
    for (const Case& c : cases) {
      w.bits = bits;
      w.N = c.N;
      w.K = c.K;
      CAPTURE(bits);
      CAPTURE(c.N);
      CAPTURE(c.K);
      CAPTURE(c.M);
      const bool above64 = gpu::detail::tcw_pdl_above64(bits);  // false only in builds with other knobs
      // (the cluster slices' rule, the test below, comes first where tcw's plan runs them)
      const bool cl_pdl = cluster_rule_takes_tcw(w, c.M, true);
      const bool cl_plain = cluster_rule_takes_tcw(w, c.M, false);
      const bool short_tcw = c.short_k3 && bits <= 3 && gpu::detail::tcw_short_rows_pdl();
      const bool small_tcw = c.small_k3 && bits <= 3 && gpu::detail::tcw_small_pdl();
      const bool pdl_rule = above64 && !(bits == 5 && c.k5_dq) && (c.pdl == tcw || short_tcw || small_tcw);
      CHECK(gpu::choose_kernel(c.M, w, Act::f16, true, true) == (pdl_rule || cl_pdl ? tcw : dq));
      if (c.pdl == tcw) CHECK(gpu::choose_kernel(c.M, w, Act::f16, true, false) == (cl_plain ? tcw : dq));
    }
}

TEST_CASE("gpu: with PDL, tcv keeps its wide cluster grids of narrow rows at M = 3..8 and 16 (k = 3 to 16) but on tcw's pair table") {
  // choose_kernel reads only the shape (no memory allocated). Qwen3-Coder-Next o_proj (2048 x 4096,
  // 8.4 M weights): tcv's plan on an H100 is 512 CTAs in clusters of 4 slices; with PDL it goes to tcv
  // at M = 3..8 and 16 at k = 2, 3, 5 and at k = 4 without the fp16 codebook, and to tcw at k = 4 on
  // its pair table and at M = 9..15 (bench/results/2026-11-27-h100-moekw) but at k = 3, which keeps tcv there
  // (bench/results/2026-11-28-h100-final-s39).
  if (!gpu::detail::device_has_pdl() || !gpu::tcw_supported()) return;
  const bool h100 = gpu::detail::device_sm_count() == 132;  // there no case below may skip
  TiledView w;
  w.N = 2048;
  w.K = 4096;
  for (bool half_cb : {true, false})
    for (int bits : {2, 3, 4, 5})
      for (int64_t M : {3, 4, 6, 8, 12, 16}) {
        CAPTURE(half_cb);
        CAPTURE(bits);
        CAPTURE(M);
        w.half_cb = half_cb;
        w.bits = bits;
        const bool wide = tcv_wide_cluster(gpu::detail::tcv_plan_of(M, w, Act::f16));
        if (h100) CHECK(wide);
        if (!wide) continue;
        const bool tcv = !(bits == 4 && half_cb) && (M <= 8 || M == 16 || bits == 3);
        const gpu::Kernel want = tcv ? gpu::Kernel::tcv : gpu::Kernel::tcw;
        CHECK(gpu::choose_kernel(M, w, Act::f16, false, true) == want);
      }
  // Without PDL the rule does not apply: tcw at M = 16 on tcw's pair table; at k = 2 tcv since the plain rule of
  // bench/results/2026-11-28-h200-s47n (tcv below 32 M weights at k <= 3, M = 9..16).
  w.half_cb = true;
  w.bits = 4;
  if (h100) CHECK(gpu::choose_kernel(16, w, Act::f16, false, false) == gpu::Kernel::tcw);
  w.bits = 2;
  if (h100)
    CHECK(gpu::choose_kernel(16, w, Act::f16, false, false) ==
          (gpu::detail::tcw_mid_plain() ? gpu::Kernel::tcw : gpu::Kernel::tcv));
}

TEST_CASE("gpu: above M = 16 automatic takes tcw or dequantize + cuBLAS by the prefill bounds") {
  // choose_kernel reads only the shape (no memory allocated). With a cuBLAS handle (bench/results/
  // 2026-11-27-h100-ldisp): tcw up to M = 32 on every shape (the short narrow rows only with live
  // PDL), at M = 64 too (the short narrow rows only with live PDL at k <= 4: -tcwpdl64*), at
  // 65..128 from 4 M weights on rows of K > 512, at 129..256 from 10 M (8 M on rows of K >= 5120), at
  // 257..512 from 10 M on rows of K >= 5120 (16 M before tcw's token tile choice, -tileland) or from 40 M,
  // at 513..1024 from 40 M at k <= 4 (-sk128land/ldisp, -m1024); dequant_cublas elsewhere. Without one,
  // the earlier bounds (4 M at M <= 128, 8 M at M <= 256 and on long rows at M <= 512) against mma, and
  // 4 M at 513..1024 (-m1024/mma). Under live PDL, with a handle, the rule of the test above takes some of
  // the dequant_cublas rows at M = 65..576 to tcw (pdl_tcw, pdl_k4).
  if (!gpu::tcw_supported()) return;
  TiledView w;
  struct Case {
    int64_t N, K, M;
    gpu::Kernel with_cublas, without;
    bool k5_dq = false;  // with a handle at k = 5: dequant_cublas instead of with_cublas
    bool pdl_tcw = false;  // tcw with a handle under live PDL above M = 64 (tcw_pdl_above64, -pdlbig)
    bool pdl_k4 = false;   // the same at k <= 4 only (-widthsland)
  };
  const gpu::Kernel tcw = gpu::Kernel::tcw, dq = gpu::Kernel::dequant_cublas, mma = gpu::Kernel::mma;
  const std::vector<Case> cases = {
      {2048, 512, 32, tcw, mma},  // Qwen3 shared_expert.down: short narrow rows (with live PDL; dq without)
      {2048, 512, 64, tcw, mma},  // (with live PDL at k <= 4)
      {8960, 512, 128, dq, tcw, false, true},  // GLM kv_b_proj, 4.6 M, K = 512 (tcw under PDL)
      {1024, 4096, 128, tcw, tcw},  // Llama-3-8B k_proj, 4.2 M
      {1024, 8192, 128, tcw, tcw},  // Llama-3-70B k_proj, 8.4 M
      {1024, 8192, 256, tcw, tcw},  // (8.4 M on rows of K >= 5120)
      {1024, 8192, 512, dq, tcw},
      {2048, 4096, 256, dq, tcw, false, true},  // Qwen3 o_proj, 8.4 M, K < 5120 (tcw under PDL)
      {4096, 2048, 256, dq, tcw, false, false, true},  // Qwen3 q_proj, 8.4 M (tcw under PDL at k <= 4)
      {2048, 5120, 256, tcw, tcw},  // Qwen3 dense.down, 10.5 M
      {2048, 5120, 512, tcw, tcw},  // (from 10 M on rows of K >= 5120)
      {2048, 10240, 512, tcw, tcw},  // GLM shared_experts.down, 21 M
      {4096, 4096, 512, dq, mma},    // Llama-3-8B q_proj, 16.8 M, K < 5120
      {20480, 2048, 512, tcw, tcw},  // GLM shared_experts.gate_up, 42 M
      {8192, 8192, 1024, tcw, tcw, true},   // Llama-3-70B q_proj, 67 M (k <= 4 with a handle)
      {20480, 2048, 1024, tcw, tcw, true},  // GLM shared_experts.gate_up, 42 M (k <= 4 with a handle)
      {4096, 4096, 1024, dq, tcw},          // Llama-3-8B q_proj, 16.8 M
      {1024, 4096, 1024, dq, tcw},          // Llama-3-8B k_proj, 4.2 M
      {512, 2048, 1024, dq, mma},           // Qwen3 k_proj, 1 M
      {8192, 8192, 2048, dq, mma},          // beyond M = 1024
  };
  for (int bits : {2, 4, 5}) {  // (the bounds differ by k only on the short narrow rows and at 513..1024)
    w.bits = bits;
    w.half_cb = bits == 4;
    for (const Case& c : cases) {
      w.N = c.N;
      w.K = c.K;
      for (bool pdl : {false, true}) {
        // short narrow rows: tcw under live PDL (to M = 64 at k <= 4), dequant_cublas launched plainly
        const bool live = pdl && gpu::detail::device_has_pdl();
        const bool short_narrow = c.K <= 512 && c.N < 8192 && c.M <= 64;
        // where tcw's plan runs cluster slices, within the rule's bounds (the test below): tcw
        const bool cl = cluster_rule_takes_tcw(w, c.M, live);
        const gpu::Kernel want = short_narrow ? (live && (c.M <= 32 || bits <= 4) ? tcw : dq)
                                 : live && (c.pdl_tcw || (c.pdl_k4 && bits <= 4)) && gpu::detail::tcw_pdl_above64(bits) ? tcw
                                 : cl ? tcw
                                 : bits == 5 && c.k5_dq ? dq : c.with_cublas;
        CHECK_MESSAGE(gpu::choose_kernel(c.M, w, Act::f16, true, pdl) == want, "N=", c.N, " K=", c.K, " M=", c.M,
                      " k=", bits, " pdl=", pdl);
        CHECK_MESSAGE(gpu::choose_kernel(c.M, w, Act::f16, false, pdl) == c.without, "no cuBLAS: N=", c.N,
                      " K=", c.K, " M=", c.M, " k=", bits);
      }
    }
  }
}

TEST_CASE("gpu: automatic takes tcw where its plan runs cluster slices, at M = 129..512 by weights") {
  // choose_kernel and tcw_cluster_slices read only the shape and the GPU (no memory allocated). On the H100
  // tcw's plan gives Qwen3 q_proj (4096 x 2048) at M = 256 and Llama-3-8B q/o_proj (4096 x 4096) at M = 512
  // two slices of >= 4 MB of partials, run as clusters (KBIT_TCW_CLUSTER); there tcw beat dequant_cublas
  // (bench/results/2026-11-27-h100-clland, -cldisp). The rule: from 8 M weights at 129..256, from 16 M at
  // 257..512, at k = 5 there only above M = 320; Qwen3 q_proj at M = 288 (8.4 M) stays on dequant_cublas but
  // under live PDL at k <= 4 (the PDL rules).
  // Qwen3 o_proj (2048 x 4096) at M = 256 splits 4 ways: no clusters, dequant_cublas without PDL.
  if (!gpu::tcw_supported() || !gpu::detail::device_has_clusters()) return;
  const bool h100 = gpu::detail::device_sm_count() == 132;
  TiledView w;
  for (int bits : {2, 3, 4, 5})
    for (bool pdl : {false, true}) {
      w.bits = bits;
      w.half_cb = bits == 4;
      CAPTURE(bits);
      CAPTURE(pdl);
      for (auto [N, K, M] : {std::tuple<int64_t, int64_t, int64_t>{4096, 2048, 256}, {4096, 4096, 512}}) {
        w.N = N;
        w.K = K;
        const bool cl = gpu::detail::tcw_cluster_slices(M, w, Act::f16, pdl);
        if (h100) CHECK(cl);
        if (cl) CHECK(gpu::choose_kernel(M, w, Act::f16, true, pdl) == gpu::Kernel::tcw);
      }
      w.N = 4096;  // Qwen3 q_proj at M = 288: 8.4 M weights (tcw by the PDL rules at k <= 4 since -widthsland)
      w.K = 2048;
      const bool pdl_rule = pdl && gpu::detail::device_has_pdl() && bits <= 4 && gpu::detail::tcw_pdl_above64(bits);
      CHECK(gpu::choose_kernel(288, w, Act::f16, true, pdl) ==
            (pdl_rule ? gpu::Kernel::tcw : gpu::Kernel::dequant_cublas));
      w.N = 2048;
      w.K = 4096;
      CHECK_FALSE(gpu::detail::tcw_cluster_slices(256, w, Act::f16, pdl));
      if (!pdl) CHECK(gpu::choose_kernel(256, w, Act::f16, true, false) == gpu::Kernel::dequant_cublas);
      w.N = 2048;  // Qwen3 shared_expert.down at M = 256: 2 slices of 4.2 MB, but 1 M weights
      w.K = 512;
      CHECK(gpu::choose_kernel(256, w, Act::f16, true, pdl) == gpu::Kernel::dequant_cublas);
    }
}

TEST_CASE("gpu: dequantize refuses K beyond its grid and dispatch never picks it there") {
  // The dequantize grid holds 65535 groups of 8 k-tiles (kDequantMaxKTiles, K up to 33,553,920):
  // one tile more is bad_shape before any launch, the largest K runs; automatic then takes mma at
  // M = 1024 with a cuBLAS handle. A k = 5 MoE expert of 2^32 or more packed words is never given
  // to grouped_gemv (its 32-bit block index), not even at 1 routed row (found by review).
  TiledView w;
  w.bits = 2;
  w.N = 1;
  w.K = (gpu::detail::kDequantMaxKTiles + 1) * kTileK;
  for (bool pdl : {false, true}) CHECK(gpu::choose_kernel(1024, w, Act::f16, true, pdl) == gpu::Kernel::mma);
  DeviceBuf<uint32_t> packed(size_t(w.expert_words()));
  DeviceBuf<uint8_t> absmax(size_t(w.expert_absmax()));
  DeviceBuf<float> cb(std::vector<float>{-1.0f, -0.25f, 0.25f, 1.0f});
  absmax.zero();
  packed.zero();
  w.packed = packed.p;
  w.absmax = absmax.p;
  w.codebook = cb.p;
  DeviceBuf<uint16_t> out(size_t(w.N * w.K));
  CHECK(gpu::dequantize(w, out.p, gpu::OutType::f16, nullptr, false) == gpu::Status::bad_shape);
  w.K -= kTileK;  // the largest K it takes: all zero scales, so every output is +-0 (poison is NaN)
  out.poison();
  REQUIRE(gpu::dequantize(w, out.p, gpu::OutType::f16, nullptr, false) == gpu::Status::ok);
  const std::vector<uint16_t> got = out.host();
  CHECK(std::count_if(got.begin(), got.begin() + w.N * w.K, [](uint16_t v) { return (v & 0x7FFF) == 0; }) == w.N * w.K);

  TiledView m;
  m.bits = 5;
  m.E = 1;
  m.N = 2048;
  m.K = int64_t{1} << 24;
  REQUIRE_FALSE(gpu::detail::gemv_fits(m));
  CHECK(gpu::choose_moe_kernel(1, m, Act::f16, 0) != gpu::MoeKernel::grouped_gemv);
  m.K = 1536;  // GLM-4.7-Flash experts.down: grouped_gemv at 1 row
  CHECK(gpu::choose_moe_kernel(1, m, Act::f16, 0) == gpu::MoeKernel::grouped_gemv);
}

TEST_CASE("gpu: automatic never gives gemv a matrix of 2^32 or more packed words") {
  // gemv indexes one matrix's blocks in 32 bits (gemv_fits). choose_kernel reads only the shape, so
  // no memory is allocated: N = 64, K = 2^29, k = 4 is exactly 2^32 words, and its narrow rows would
  // otherwise go to gemv up to M = 4.
  TiledView w;
  w.bits = 4;
  w.N = 64;
  w.K = int64_t{1} << 29;
  REQUIRE(w.expert_words() == int64_t{1} << 32);
  CHECK_FALSE(gpu::detail::gemv_fits(w));
  for (int64_t M : {1, 2, 3, 4})
    for (bool pdl : {false, true}) {
      const gpu::Kernel k = gpu::choose_kernel(M, w, Act::f16, false, pdl);
      CHECK_MESSAGE(k != gpu::Kernel::gemv, "M=", M, " pdl=", pdl, ": chose gemv");
    }
  w.K -= kTileK;  // one k-tile less fits
  CHECK(gpu::detail::gemv_fits(w));
}

TEST_CASE("gpu: with MoeArgs::pdl the grouped kernels wait for the routing and A written before them") {
  // The routing is all zeros (every expert empty) until the producer writes it.
  Stream st;
  uint64_t seed = 9500;
  std::vector<MoeCase> cases = {{4, 72, 96, {1, 0, 3, 2}}, {8, 130, 2080, {0, 0, 0, 70, 0, 0, 0, 0}}, {3, 64, 256, {17, 0, 33}}};
  {
    Rng rng(11);
    MoeCase c{300, 96, 128, std::vector<int64_t>(300, 0)};
    for (int t = 0; t < 40; ++t) c.rows[size_t(rng.below(300))]++;
    cases.push_back(c);
  }
  for (int bits : {2, 4})
    for (const MoeCase& c : cases) {
      const ExactMoe x(bits, c, seed);
      const DeviceWeights& w = x.w;
      const std::vector<int64_t>& off = x.off;
      const std::vector<float>& A = x.A;
      const std::vector<float>& ref = x.ref;
      const int64_t rows = off.back();
      const DeviceBuf<int32_t> osrc(std::vector<int32_t>(off.begin(), off.end()));
      for (Act act : {Act::f16, Act::bf16}) {
        const std::vector<uint16_t> want = to_act(act, ref);
        const DeviceBuf<uint16_t> src(to_act(act, A));
        for (gpu::MoeKernel kernel : {gpu::MoeKernel::grouped_gemv, gpu::MoeKernel::grouped_tcv, gpu::MoeKernel::automatic}) {
          DeviceBuf<uint16_t> dA(size_t(rows * c.K)), dC(size_t(rows * c.N));
          DeviceBuf<int32_t> dOff(off.size());
          dA.poison();
          dC.zero();
          dOff.zero();
          gpu::MoeArgs a;
          a.A = dA.p, a.C = dC.p, a.expert_offsets = dOff.p, a.total_rows = rows, a.act = act, a.w = w.view;
          a.kernel = kernel, a.stream = st.s, a.pdl = true;
          behind_slow_producer(
              st.s, src, dA, dC,
              [&] {
                const gpu::Status s = gpu::moe_linear(a);
                REQUIRE_MESSAGE(s == gpu::Status::ok, gpu::status_name(s), ": ", gpu::status_message());
              },
              &osrc, &dOff);
          const int64_t bad = first_mismatch(dC.host(), want);
          CHECK_MESSAGE(bad < 0, "pdl ", std::string(gpu::moe_kernel_name(kernel)), " k=", bits, " E=", c.E, " N=", c.N,
                        " K=", c.K, " ", std::string(act_name(act)), ": first wrong element ", bad);
        }
      }
    }
}

// W'[e, n, k] of q in `act` as the pair tables decode it, rn(rn(cb) * dec), and as the other decodes
// do, rn(cb * dec) (the one-hot decode tests).
struct DecodedW {
  uint16_t pairs, one_rounding;
};
DecodedW decoded_w(Act act, const QuantizedTensor& q, int64_t e, int64_t n, int64_t k) {
  const float cb = q.codebook_stored[size_t(q.view().index_at(e, n, k))];
  const float dec = e4m4_decode(q.view().absmax_at(e, n, k / kBlockSize));
  return {to_act(act, from_act(act, to_act(act, cb)) * dec), to_act(act, cb * dec)};
}

TEST_CASE("gpu: tcw's and tcv's k = 4, 3 and 2 decodes give the documented W' bit for bit (one-hot activations)") {
  // Token m of a launch is the unit vector e_(k0 + m), so C[m, n] = W'[n, k0 + m] as the kernel
  // rounded it to the activation type: no sum can round. The pair table (TiledView::half_cb) must
  // give rn(rn(cb) * dec), the offsets decode rn(fp32(cb * dec)) -- on random bytes with a
  // non-dyadic codebook, where the two differ (checked, so the test can tell them apart). tcw reads
  // all K columns in one launch (M = K), tcv 8 per launch. The dense tcv takes the pair table only
  // from kTcvPairsMinWeights: it runs once forced onto it (tcv_force_pairs) and once by its size
  // rule (these shapes are small: offsets), and gpu::weight_roundings must name the decode that ran.
  // At k = 2 the dense tcv takes its 64-byte pair table at any size with half_cb up to M =
  // kTcvPairs2MaxM (else the byte tables, one rounding); at k = 3 its table of adjacent pairs
  // (tcv_decode.cuh: stage_adj_table) by the k = 4 size rule up to M = kTcvPairs3MaxM; tcw has no k = 2 or 3 pair table.
  CublasHandle cublas;
  uint64_t seed = 7100;
  for (int bits : {4, 3, 2})
  for (const auto& [N, K] : std::vector<std::pair<int64_t, int64_t>>{{130, 256}, {64, 160}, {200, 96}}) {
    const QuantizedTensor q = random_weights(bits, 1, N, K, seed++);
    REQUIRE(q.view().half_cb);  // random_weights' codebook: no value in fp16's subnormal range
    for (gpu::Kernel kernel : {gpu::Kernel::tcw, gpu::Kernel::tcv}) {
      if (kernel == gpu::Kernel::tcw && !gpu::tcw_supported()) continue;
      // tcv at k = 2, 3 takes its pair table up to M = kTcvPairs2MaxM, kTcvPairs3MaxM, so its
      // launches stay within that
      const int64_t chunk = kernel == gpu::Kernel::tcw ? K
                            : bits == 2               ? gpu::detail::kTcvPairs2MaxM
                            : bits == 3               ? gpu::detail::kTcvPairs3MaxM
                                                      : 8;
      for (int force : {1, 0}) {
        // tcw has no size rule to force, nor has k = 2 (tcv_force_pairs acts at k = 3 and 4)
        if ((kernel == gpu::Kernel::tcw || bits == 2) && force == 0) continue;
        gpu::detail::tcv_force_pairs(kernel == gpu::Kernel::tcv ? force : 0);
        for (Act act : {Act::f16, Act::bf16}) {
          int64_t differ = 0;
          for (bool half_cb : {true, false}) {
            DeviceWeights w(q);
            w.view.half_cb = half_cb;
            const bool pairs = gpu::weight_roundings(kernel, w.view, chunk) == 2;
            const bool tcv = kernel == gpu::Kernel::tcv;
            const bool want_table = half_cb && (bits == 4 ? force == 1 : bits == 3 ? tcv && force == 1 : tcv);
            CHECK_MESSAGE(pairs == want_table, gpu::kernel_name(kernel), " k=", bits, " force=", force,
                          " half_cb=", half_cb, ": weight_roundings says ", pairs ? 2 : 1);
            int64_t bad = 0;
            for (int64_t k0 = 0; k0 < K; k0 += chunk) {
              const int64_t M = std::min(chunk, K - k0);
              std::vector<float> A(size_t(M * K), 0.0f);
              for (int64_t m = 0; m < M; ++m) A[size_t(m * K + k0 + m)] = 1.0f;
              std::vector<uint16_t> got;
              REQUIRE(run_dense(kernel, act, w, to_act(act, A), M, got, cublas.h));
              for (int64_t n = 0; n < N; ++n)
                for (int64_t m = 0; m < M; ++m) {
                  const int64_t k = k0 + m;
                  const DecodedW d = decoded_w(act, q, 0, n, k);
                  const uint16_t want = pairs ? d.pairs : d.one_rounding;
                  differ += pairs && from_act(act, d.pairs) != from_act(act, d.one_rounding);
                  const uint16_t g = got[size_t(m * N + n)];
                  if (from_act(act, g) != from_act(act, want) && bad++ < 3)
                    CHECK_MESSAGE(false, gpu::kernel_name(kernel), (pairs ? " pair table " : " offsets "), act_name(act),
                                  " k=", bits, " N=", N, " K=", K, ": W'[", n, ", ", k, "] = ", from_act(act, g),
                                  " want ", from_act(act, want));
                }
            }
            CHECK_MESSAGE(bad == 0, gpu::kernel_name(kernel), (pairs ? " pair table " : " offsets "), act_name(act),
                          " k=", bits, " N=", N, " K=", K, ": ", bad, " of ", N * K, " weights differ");
          }
          if (force == 1 && (bits == 4 || kernel == gpu::Kernel::tcv))  // tcw has no k = 2, 3 table
            CHECK_MESSAGE(differ > 0, "the two roundings agree everywhere on N=", N, " K=", K,
                          ": the test cannot tell them apart");
        }
      }
      gpu::detail::tcv_force_pairs(0);
    }
  }
}

TEST_CASE("gpu: grouped_tcv's k = 4, 3 and 2 decodes give the W' moe_weight_roundings names (one-hot activations)") {
  // As the dense one-hot test, through moe_linear: row m of each expert the unit vector e_(k0 + m), so
  // C[row, n] = W'_e[n, k0 + m] as the kernel rounded it. With half_cb the k = 3, 4 table of adjacent pairs runs at any
  // rows, the k = 2 one up to kTcvPairs2MaxM mean rows per active expert (grouped_tcv_rows), whatever the caller's
  // hint; above it and without half_cb, one rounding. Two experts of R rows each; one row each again with the hint 8
  // (which KBIT_GTCV_NT_HINT=1 would take instead); and an expert of 8 rows among three of one (mean 3), so the k = 2
  // table also decodes an item of more than kTcvPairs2MaxM rows.
  struct OneHot {
    std::vector<int64_t> rows;
    int hint;
  };
  const std::vector<OneHot> cases = {{{1, 1}, 0}, {{2, 2}, 0}, {{gpu::detail::kTcvPairs2MaxM, gpu::detail::kTcvPairs2MaxM}, 0},
                                     {{8, 8}, 0}, {{1, 1}, 8}, {{8, 1, 1, 1}, 0}};
  const bool by_hint = gpu::detail::env_knob("KBIT_GTCV_NT_HINT", false);  // as the library reads it
  uint64_t seed = 7300;
  const int64_t N = 72, K = 160;  // K % 128 = 32: a half-empty last k-tile
  for (int bits : {4, 3, 2})
    for (const OneHot& c : cases) {
      if (c.hint != 0 && by_hint) continue;
      const int64_t E = int64_t(c.rows.size());
      const std::vector<int64_t> off = ExactMoe::offsets(c.rows);
      const int64_t total = off.back(), most = *std::max_element(c.rows.begin(), c.rows.end());
      const int64_t mean = kbit::moe_mean_rows(E, total);
      // A random codebook with a value within fp16's subnormals of zero is not half_cb: draw the next seed then.
      QuantizedTensor q = random_weights(bits, E, N, K, seed++);
      for (int tries = 0; !q.view().half_cb && tries < 16; ++tries) q = random_weights(bits, E, N, K, seed++);
      REQUIRE(q.view().half_cb);
      for (Act act : {Act::f16, Act::bf16}) {
        int64_t differ = 0;
        for (bool half_cb : {true, false}) {
          DeviceWeights w(q);
          w.view.half_cb = half_cb;
          const bool pairs = gpu::moe_weight_roundings(gpu::MoeKernel::grouped_tcv, w.view, total, c.hint) == 2;
          const bool want_table = half_cb && (bits != 2 || mean <= gpu::detail::kTcvPairs2MaxM);
          CHECK_MESSAGE(pairs == want_table, "grouped_tcv k=", bits, " rows of ", E, " experts, most ", most, " hint ",
                        c.hint, " half_cb=", half_cb, ": moe_weight_roundings says ", pairs ? 2 : 1);
          int64_t bad = 0;
          for (int64_t k0 = 0; k0 < K; k0 += most) {
            std::vector<float> A(size_t(total * K), 0.0f);  // one-hot rows of this launch; the rest stay zero
            for (int64_t e = 0; e < E; ++e)
              for (int64_t m = 0; m < std::min(c.rows[size_t(e)], K - k0); ++m)
                A[size_t((off[size_t(e)] + m) * K + k0 + m)] = 1.0f;
            std::vector<uint16_t> got;
            run_moe(gpu::MoeKernel::grouped_tcv, act, w, to_act(act, A), off, got, c.hint);
            for (int64_t e = 0; e < E; ++e)
              for (int64_t n = 0; n < N; ++n)
                for (int64_t m = 0; m < std::min(c.rows[size_t(e)], K - k0); ++m) {
                  const int64_t k = k0 + m;
                  const DecodedW d = decoded_w(act, q, e, n, k);
                  const uint16_t want = pairs ? d.pairs : d.one_rounding;
                  differ += pairs && from_act(act, d.pairs) != from_act(act, d.one_rounding);
                  const uint16_t g = got[size_t((off[size_t(e)] + m) * N + n)];
                  if (from_act(act, g) != from_act(act, want) && bad++ < 3)
                    CHECK_MESSAGE(false, "grouped_tcv", (pairs ? " pair table " : " one rounding "), act_name(act),
                                  " k=", bits, " most ", most, ": W'_", e, "[", n, ", ", k, "] = ", from_act(act, g),
                                  " want ", from_act(act, want));
                }
          }
          CHECK_MESSAGE(bad == 0, "grouped_tcv", (pairs ? " pair table " : " one rounding "), act_name(act), " k=", bits,
                        " most ", most, ": ", bad, " weights differ");
        }
        if (bits != 2 || mean <= gpu::detail::kTcvPairs2MaxM)
          CHECK_MESSAGE(differ > 0, "the two roundings agree everywhere at k=", bits, " most ", most,
                        ": the test cannot tell them apart");
      }
    }
}

TEST_CASE("gpu: MoE kernels equal the CPU reference bit for bit in exact mode") {
  std::vector<gpu::MoeKernel> kernels = {gpu::MoeKernel::v0, gpu::MoeKernel::grouped_gemv, gpu::MoeKernel::grouped_tcv,
                                         gpu::MoeKernel::grouped_mma, gpu::MoeKernel::automatic};
  if (gpu::tcw_supported()) kernels.push_back(gpu::MoeKernel::grouped_tcw);
  uint64_t seed = 1000;
  std::vector<MoeCase> cases = {
      {4, 72, 96, {1, 0, 3, 2}},
      {8, 130, 2080, {0, 0, 0, 70, 0, 0, 0, 0}},  // one expert takes every row
      {3, 64, 256, {17, 0, 33}},
      {1, 8, 64, {5}},
      // grouped_tcw at 69 mean rows (64-row items at every k), an expert whose rows start
      // off the permute's 8-row tiles, N and K tails (N % 128 = 72, K % 256 = 128)
      {2, 200, 640, {100, 37}},
      // grouped_tcw's token tiles by the mean rows per expert (grouped_tcw.cu, grouped_tcw_mn): at mean 60
      // and 96 64 rows (the 64-token kernels at two CTAs per SM); 256 at 124 (k >= 3; 64 at k = 2) and at 207;
      // experts split into items
      {2, 100, 512, {70, 50}},
      {2, 200, 512, {130, 62}},
      {2, 136, 384, {150, 97}},
      {2, 72, 256, {300, 113}},
      // grouped_tcw's item widths (the least power-of-two part of the tile, >= 32, that holds the
      // item's rows): mean 178 -> 256-row tiles, items of 256, 128, 64 and 32 width, full and partial
      // (rows 256, 200, 129, 128, 65, 64, 33, 32, 8, 1 per item); mean 60 -> 64-row tiles at k = 3..5 (widths 64,
      // 32) and at k = 2 (one width there: grouped_tcw.cu, kGroupedTcwWidths). The 128-row tile (no longer the
      // rule's but at k = 4 without the pair table) runs at every k in the forced-tile doctest below.
      {12, 72, 256, {520, 400, 300, 257, 200, 129, 128, 65, 64, 33, 32, 1}},
      {6, 40, 128, {130, 100, 64, 40, 20, 1}},
      // grouped_tcw's two 128-row tiles per CTA at K <= 512 (grouped_tcw_rt): three row tiles (the
      // last CTA of each item has one; N = 264 also ends in a partial tile), at 64-row token tiles (mean 66, k = 3..5)
      // and 256 (mean 175, k >= 3), items of several widths
      {2, 300, 256, {90, 41}},
      {3, 264, 512, {256, 150, 119}},
  };
  // Decode routing with one popular expert, its most rows given as the hint (as kbit-bench gives them): 2 mean rows
  // per active expert, so grouped_tcv takes one-tile items (grouped_tcv_two_tiles; two with KBIT_GTCV_NT_HINT=1) and
  // splits the 12 rows of expert 1 into items of 8 and 4.
  cases.push_back({16, 72, 256, {1, 12, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 12});
  // Many experts, decode routing: 10 tokens x top-4 over 300 experts, most experts empty.
  {
    Rng rng(7);
    MoeCase c{300, 96, 128, std::vector<int64_t>(300, 0)};
    for (int t = 0; t < 40; ++t) c.rows[size_t(rng.below(300))]++;
    cases.push_back(c);
  }
  // find_work_item: each of the 128 threads reads the offsets of up to 4 experts in one round;
  // E = 512 fills that round exactly, E = 513 (5 experts per thread) and 1000 (8) need a second
  // round, and their rows sit in both rounds, at the edges of the threads' ranges and of the warps'.
  {
    MoeCase c{512, 40, 96, std::vector<int64_t>(512, 0)};
    for (int64_t e : {0, 3, 4, 127, 128, 255, 508, 511}) c.rows[size_t(e)] = 1 + e % 3;
    cases.push_back(c);
  }
  {
    MoeCase c{513, 40, 96, std::vector<int64_t>(513, 0)};
    for (int64_t e : {0, 4, 9, 17, 159, 160, 509, 510, 512}) c.rows[size_t(e)] = 1 + e % 4;
    cases.push_back(c);
  }
  {
    Rng rng(11);
    MoeCase c{1000, 64, 64, std::vector<int64_t>(1000, 0)};
    for (int t = 0; t < 50; ++t) c.rows[size_t(rng.below(1000))]++;
    for (int64_t e : {4, 7, 15, 255, 256, 999}) c.rows[size_t(e)] += 2;  // second rounds; the last expert
    cases.push_back(c);
  }
  for (int bits = 2; bits <= 5; ++bits)
    for (const MoeCase& c : cases) {
      const ExactMoe x(bits, c, seed);
      for (Act act : {Act::f16, Act::bf16}) {
        const std::vector<uint16_t> want = to_act(act, x.ref);
        for (gpu::MoeKernel kernel : kernels) {
          std::vector<uint16_t> got;
          run_moe(kernel, act, x.w, to_act(act, x.A), x.off, got, c.hint);
          const int64_t bad = first_mismatch(got, want);
          CHECK_MESSAGE(bad < 0, std::string(gpu::moe_kernel_name(kernel)), " k=", bits, " E=", c.E, " N=", c.N, " K=", c.K,
                        " hint ", c.hint, " ", act_name(act), ": row ", bad / c.N, " n ", bad % c.N);
        }
      }
    }
}

TEST_CASE("gpu: dequantize equals dequantize_ref bit for bit on random bytes") {
  // The kernel's warps take 16 rows x one 64-k tile, its CTAs 8 tiles: N = 130, 40 leave part rows,
  // K = 544 (8.5 tiles) a second CTA column of one tile ending in the zero pad block, K = 1024 two
  // full columns; E = 2, 3 the expert offsets.
  uint64_t seed = 5000;
  struct Shape {
    int64_t E, N, K;
  };
  for (int bits = 2; bits <= 5; ++bits)
    for (const Shape& sh : {Shape{1, 1, 32}, Shape{1, 130, 2080}, Shape{3, 9, 96}, Shape{2, 40, 544}, Shape{1, 48, 1024}}) {
      const QuantizedTensor q = random_weights(bits, sh.E, sh.N, sh.K, seed++);
      const DeviceWeights w(q);
      const size_t total = size_t(sh.E * sh.N * sh.K);
      std::vector<float> ref(total);
      dequantize_ref(q.view(), ref.data());
      for (bool v0 : {false, true}) {
        DeviceBuf<float> d32(total);
        d32.poison();
        REQUIRE(gpu::dequantize(w.view, d32.p, gpu::OutType::f32, nullptr, v0) == gpu::Status::ok);
        const auto got32 = d32.host();
        CHECK_MESSAGE(std::memcmp(got32.data(), ref.data(), total * 4) == 0, "f32 k=", bits, " v0=", v0);
        for (Act act : {Act::f16, Act::bf16}) {
          DeviceBuf<uint16_t> d16(total);
          d16.poison();
          REQUIRE(gpu::dequantize(w.view, d16.p, act == Act::f16 ? gpu::OutType::f16 : gpu::OutType::bf16, nullptr,
                                  v0) == gpu::Status::ok);
          CHECK_MESSAGE(first_mismatch(d16.host(), to_act(act, ref)) < 0, act_name(act), " k=", bits, " v0=", v0);
        }
      }
    }
}

TEST_CASE("gpu: dense kernels on random bytes stay within the dtype rounding bound") {
  // Each kernel may round W' to the activation dtype (relative error <= u; tcw's k = 4 pair table
  // rounds cb first and then W', two such errors) and rounds C (<= u); A is exact in the dtype. On
  // random data the NMSE of each rounding is about u^2 / 3, so the total (three at most) stays
  // below 2 u^2 (u = 2^-11 for fp16, 2^-8 for bf16); a layout or scale bug gives NMSE near 1.
  CublasHandle cublas;
  uint64_t seed = 9000;
  for (int bits = 2; bits <= 5; ++bits)
    for (int64_t M : {1, 3, 8, 13, 16, 40, 300}) {
      const int64_t N = 200, K = 1056;
      const QuantizedTensor q = random_weights(bits, 1, N, K, seed++);
      const DeviceWeights w(q);
      Rng rng(seed++);
      std::vector<float> A(size_t(M * K));
      for (auto& x : A) x = float(rng.normal());
      for (Act act : {Act::f16, Act::bf16}) {
        std::vector<float> Ar(A.size());
        for (size_t i = 0; i < A.size(); ++i) Ar[i] = from_act(act, to_act(act, A[i]));
        std::vector<float> ref(size_t(M * N));
        gemm_ref(Ar.data(), M, q.view(), ref.data());
        const double u = act == Act::f16 ? 0x1p-11 : 0x1p-8;
        for (gpu::Kernel kernel : {gpu::Kernel::v0, gpu::Kernel::gemv, gpu::Kernel::tcv, gpu::Kernel::tcw, gpu::Kernel::mma,
                                    gpu::Kernel::dequant_cublas}) {
          if (kernel == gpu::Kernel::dequant_cublas && !cublas.h) continue;  // KBIT_TEST_NO_CUBLAS
          std::vector<uint16_t> got;
          if (!run_dense(kernel, act, w, to_act(act, Ar), M, got, cublas.h)) continue;
          double err = 0, norm = 0;
          bool finite = true;
          for (size_t i = 0; i < ref.size(); ++i) {
            const double g = from_act(act, got[i]);
            finite = finite && std::isfinite(g);
            err += (g - ref[i]) * (g - ref[i]);
            norm += double(ref[i]) * ref[i];
          }
          const double nmse = err / norm;
          CHECK_MESSAGE(finite, gpu::kernel_name(kernel), " produced NaN/Inf k=", bits, " M=", M);
          CHECK_MESSAGE(nmse <= 2 * u * u, gpu::kernel_name(kernel), " k=", bits, " M=", M, " ", act_name(act),
                        " NMSE ", nmse, " > ", 2 * u * u);
        }
      }
    }
}

TEST_CASE("gpu: linear and moe_linear replay from a captured CUDA graph") {
  // Capture split-K GEMV, split-K MMA, split-K tcv and grouped launches on one stream, replay the graph three
  // times over fresh inputs copied into the same buffers, and compare each replay bit for bit.
  const QuantizedTensor q = make_exact_weights(4, 1, 192, 4096, 11);
  const QuantizedTensor qe = make_exact_weights(3, 16, 96, 512, 12);
  const DeviceWeights w(q), we(qe);
  const int64_t M1 = 2, M2 = 40, M3 = 9;
  const std::vector<int64_t> off = {0, 1, 1, 4, 4, 4, 9, 9, 9, 9, 9, 9, 9, 12, 12, 12, 12};
  std::vector<int32_t> off32(off.begin(), off.end());
  DeviceBuf<uint16_t> A1(size_t(M1 * 4096)), A2(size_t(M2 * 4096)), C1(size_t(M1 * 192)), C2(size_t(M2 * 192));
  DeviceBuf<uint16_t> A3(size_t(M3 * 4096)), C3(size_t(M3 * 192));
  DeviceBuf<uint16_t> Ae(size_t(12 * 512)), Ce(size_t(12 * 96));
  DeviceBuf<int32_t> dOff(off32);
  const size_t ws1 = gpu::linear_workspace_bytes(M1, w.view, Act::f16, gpu::Kernel::gemv);
  const size_t ws2 = gpu::linear_workspace_bytes(M2, w.view, Act::f16, gpu::Kernel::mma);
  const size_t ws3 = gpu::linear_workspace_bytes(M3, w.view, Act::f16, gpu::Kernel::tcv);
  REQUIRE(ws1 > 0);  // the case must exercise split-K
  REQUIRE(ws2 > 0);
  REQUIRE(ws3 > 0);
  DeviceBuf<char> W1(ws1), W2(ws2), W3(ws3);
  CUDA_REQUIRE(cudaMemset(W1.p, 0, ws1));
  CUDA_REQUIRE(cudaMemset(W2.p, 0, ws2));
  CUDA_REQUIRE(cudaMemset(W3.p, 0, ws3));
  cudaStream_t stream;
  CUDA_REQUIRE(cudaStreamCreate(&stream));
  gpu::LinearArgs a1;
  a1.A = A1.p, a1.C = C1.p, a1.M = M1, a1.w = w.view, a1.kernel = gpu::Kernel::gemv;
  a1.workspace = W1.p, a1.workspace_bytes = ws1, a1.stream = stream;
  gpu::LinearArgs a2 = a1;
  a2.A = A2.p, a2.C = C2.p, a2.M = M2, a2.kernel = gpu::Kernel::mma, a2.workspace = W2.p, a2.workspace_bytes = ws2;
  gpu::LinearArgs a3 = a1;
  a3.A = A3.p, a3.C = C3.p, a3.M = M3, a3.kernel = gpu::Kernel::tcv, a3.workspace = W3.p, a3.workspace_bytes = ws3;
  gpu::MoeArgs am;
  am.A = Ae.p, am.C = Ce.p, am.expert_offsets = dOff.p, am.total_rows = 12, am.w = we.view;
  am.kernel = gpu::MoeKernel::grouped_gemv, am.stream = stream;
  gpu::MoeArgs am2 = am;
  am2.kernel = gpu::MoeKernel::grouped_mma;
  DeviceBuf<uint16_t> Ce2(size_t(12 * 96)), Ce3(size_t(12 * 96));
  am2.C = Ce2.p;
  gpu::MoeArgs am3 = am;
  am3.kernel = gpu::MoeKernel::grouped_tcv;
  am3.C = Ce3.p;

  cudaGraph_t graph;
  CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  REQUIRE(gpu::linear(a1) == gpu::Status::ok);
  REQUIRE(gpu::linear(a2) == gpu::Status::ok);
  REQUIRE(gpu::moe_linear(am) == gpu::Status::ok);
  REQUIRE(gpu::moe_linear(am2) == gpu::Status::ok);
  REQUIRE(gpu::linear(a3) == gpu::Status::ok);
  REQUIRE(gpu::moe_linear(am3) == gpu::Status::ok);
  CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    const auto h1 = make_exact_activations(M1, 4096, 100 + replay);
    const auto h2 = make_exact_activations(M2, 4096, 200 + replay);
    const auto he = make_exact_activations(12, 512, 300 + replay);
    const auto h3 = make_exact_activations(M3, 4096, 400 + replay);
    CUDA_REQUIRE(cudaMemcpy(A3.p, to_act(Act::f16, h3).data(), A3.n * 2, cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaMemcpy(A1.p, to_act(Act::f16, h1).data(), A1.n * 2, cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaMemcpy(A2.p, to_act(Act::f16, h2).data(), A2.n * 2, cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaMemcpy(Ae.p, to_act(Act::f16, he).data(), Ae.n * 2, cudaMemcpyHostToDevice));
    C1.poison(), C2.poison(), C3.poison(), Ce.poison(), Ce2.poison(), Ce3.poison();
    CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    std::vector<float> r1(size_t(M1 * 192)), r2(size_t(M2 * 192)), re(size_t(12 * 96));
    gemm_ref(h1.data(), M1, q.view(), r1.data());
    gemm_ref(h2.data(), M2, q.view(), r2.data());
    moe_gemm_ref(he.data(), off, qe.view(), re.data());
    std::vector<float> r3(size_t(M3 * 192));
    gemm_ref(h3.data(), M3, q.view(), r3.data());
    CHECK_MESSAGE(first_mismatch(C3.host(), to_act(Act::f16, r3)) < 0, "tcv replay ", replay);
    CHECK_MESSAGE(first_mismatch(Ce3.host(), to_act(Act::f16, re)) < 0, "grouped_tcv replay ", replay);
    CHECK_MESSAGE(first_mismatch(C1.host(), to_act(Act::f16, r1)) < 0, "gemv replay ", replay);
    CHECK_MESSAGE(first_mismatch(C2.host(), to_act(Act::f16, r2)) < 0, "mma replay ", replay);
    CHECK_MESSAGE(first_mismatch(Ce.host(), to_act(Act::f16, re)) < 0, "grouped_gemv replay ", replay);
    CHECK_MESSAGE(first_mismatch(Ce2.host(), to_act(Act::f16, re)) < 0, "grouped_mma replay ", replay);
  }
  // The split-K counters are back at zero after the replays.
  std::vector<uint32_t> counters(4);
  CUDA_REQUIRE(cudaMemcpy(counters.data(), W2.p, 16, cudaMemcpyDeviceToHost));
  CHECK(counters == std::vector<uint32_t>(4, 0u));
  CUDA_REQUIRE(cudaMemcpy(counters.data(), W3.p, 16, cudaMemcpyDeviceToHost));
  CHECK(counters == std::vector<uint32_t>(4, 0u));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

TEST_CASE("gpu: linear reports violated preconditions") {
  const QuantizedTensor q = make_exact_weights(4, 1, 64, 128, 3);
  const DeviceWeights w(q);
  DeviceBuf<uint16_t> A(size_t(8 * 128)), C(size_t(8 * 64));
  gpu::LinearArgs a;
  a.A = A.p;
  a.C = C.p;
  a.M = 8;
  a.w = w.view;
  a.kernel = gpu::Kernel::gemv;
  CHECK(gpu::linear(a) == gpu::Status::bad_kernel);
  CHECK(std::string(gpu::status_message()).find("M = 8") != std::string::npos);
  a.kernel = gpu::Kernel::tcv;
  a.M = 17;
  CHECK(gpu::linear(a) == gpu::Status::bad_kernel);
  CHECK(std::string(gpu::status_message()).find("M = 17") != std::string::npos);
  a.M = 8;
  a.kernel = gpu::Kernel::dequant_cublas;
  a.workspace = nullptr;
  CHECK(gpu::linear(a) == gpu::Status::workspace_too_small);
  a.kernel = gpu::Kernel::mma;
  a.w.bits = 6;
  CHECK(gpu::linear(a) == gpu::Status::bad_bits);
  a.w.bits = 4;
  a.w.K = 100;
  CHECK(gpu::linear(a) == gpu::Status::bad_shape);
  a.w.K = 1LL << 31;  // refused before any read of the weights
  CHECK(gpu::linear(a) == gpu::Status::bad_shape);
  CHECK(std::string(gpu::status_message()).find("K above 2147483647") != std::string::npos);
  a.w.K = 128;
  a.A = static_cast<const char*>(a.A) + 2;
  CHECK(gpu::linear(a) == gpu::Status::misaligned);
  // The workspace is read and written as 16-byte vectors (tcw's permuted activations, partials).
  a.A = A.p;
  a.kernel = gpu::Kernel::dequant_cublas;
  const size_t need = gpu::linear_workspace_bytes(a.M, a.w, a.act, a.kernel);
  DeviceBuf<uint8_t> ws(need + 16);
  a.workspace = ws.p + 8;
  a.workspace_bytes = need + 8;
  CHECK(gpu::linear(a) == gpu::Status::misaligned);
  CHECK(std::string(gpu::status_message()).find("16-byte") != std::string::npos);
  // tcw's grid bounds M (256-token tiles, 65535 of them); refused before any launch or allocation.
  a.workspace = nullptr;
  a.workspace_bytes = 0;
  a.kernel = gpu::Kernel::tcw;
  a.M = 65535LL * 256 + 1;
  CHECK(gpu::linear(a) == gpu::Status::bad_kernel);
}

TEST_CASE("gpu: grouped_tcw at every token tile equals the CPU reference bit for bit; the tile rule") {
  if (!gpu::tcw_supported()) return;
  // The rule (grouped_tcw_mn): k = 2 32 / 64 / 256 to 16 / 160 mean rows; k = 3, k = 4 on the pair table and k = 5
  // (the 64-token kernels at two CTAs per SM) 64 to 96 (k = 3: 32 to 8), then 256; k = 4 without the pair table
  // 32 / 128 / 256 to 48 / 72. Not where the environment sets the tile or turns the rule off (the A/B knobs).
  const bool knobs = std::getenv("KBIT_GTCW_MN") != nullptr || std::getenv("KBIT_GTCW_MN64") != nullptr;
  struct Rule {
    int bits;
    bool pairs;
    int64_t mean;
    int mn;
  };
  for (const Rule& r : std::vector<Rule>{{2, false, 16, 32},  {2, false, 17, 64},  {2, false, 160, 64}, {2, false, 161, 256},
                                         {3, false, 8, 32},   {3, false, 9, 64},   {3, false, 96, 64},  {3, false, 97, 256},
                                         {4, true, 8, 64},    {4, true, 96, 64},   {4, true, 97, 256},  {4, false, 48, 32},
                                         {4, false, 49, 128}, {4, false, 73, 256}, {5, false, 8, 64},   {5, false, 96, 64},
                                         {5, false, 97, 256}}) {
    if (knobs) break;
    const QuantizedTensor q = make_exact_weights(r.bits, 4, 64, 256, 3);
    const DeviceWeights w(q);
    TiledView v = w.view;
    v.half_cb = r.pairs || r.bits != 4;  // k = 4 without the pair table: a codebook not exact in half precision
    REQUIRE(gpu::detail::tcw_uses_pairs(v) == r.pairs);
    CHECK(gpu::detail::grouped_tcw_mn64(v) == (r.bits == 3 || r.bits == 5 || r.pairs));
    CHECK_MESSAGE(gpu::detail::grouped_tcw_token_tile(4 * r.mean, v) == r.mn, "k=", r.bits, " pairs=", r.pairs, " mean ",
                  r.mean);
  }
  // The 64-token kernels hold two CTAs per SM (k = 4 without the pair table one), with one and with two row tiles per
  // CTA (K = 256, N > 128: grouped_tcw_rt).
  for (int bits = 2; bits <= 5; ++bits)
    for (bool pairs : {false, true}) {
      if (pairs && bits != 4) continue;
      for (int64_t n : {64, 256}) {
        const QuantizedTensor q = make_exact_weights(bits, 4, n, 256, 3);
        const DeviceWeights w(q);
        TiledView v = w.view;
        v.half_cb = pairs || bits != 4;
        for (Act act : {Act::f16, Act::bf16}) {
          CAPTURE(bits);
          CAPTURE(pairs);
          CAPTURE(n);
          CHECK(gpu::detail::grouped_tcw_resident(v, act, 64) == (bits != 4 || pairs ? 2 : 1));
        }
      }
    }
  // Restores the rule when a check below throws (REQUIRE in run_moe), so no later doctest runs with a forced tile.
  struct ForceMn {
    ~ForceMn() { gpu::detail::grouped_tcw_force_mn(0); }
  } restore;
  // Every tile forced, at every k: the tiles the rule no longer takes (128 but at k = 4 without the pair table; 32
  // at k = 5 and k = 4 on the pair table) stay correct. Items of every width of each tile, full and partial; K = 512 takes two row tiles per CTA.
  const std::vector<MoeCase> cases = {{4, 200, 512, {300, 97, 0, 33}}, {3, 136, 1088, {64, 65, 1}}};
  uint64_t seed = 9100;
  for (int mn : {32, 64, 128, 256}) {
    gpu::detail::grouped_tcw_force_mn(mn);
    for (int bits = 2; bits <= 5; ++bits)
      for (const MoeCase& c : cases) {
        const ExactMoe x(bits, c, seed);
        CHECK(gpu::detail::grouped_tcw_token_tile(x.off.back(), x.w.view) == mn);
        for (Act act : {Act::f16, Act::bf16}) {
          std::vector<uint16_t> got;
          run_moe(gpu::MoeKernel::grouped_tcw, act, x.w, to_act(act, x.A), x.off, got);
          const int64_t bad = first_mismatch(got, to_act(act, x.ref));
          CHECK_MESSAGE(bad < 0, "tile ", mn, " k=", bits, " E=", c.E, " N=", c.N, " K=", c.K, " ", act_name(act), ": row ",
                        bad / c.N, " n ", bad % c.N);
        }
      }
  }
}

TEST_CASE("gpu: MoE dispatch takes grouped_tcw from 8 mean rows, from 6 at k = 4 on the pair table and at k = 5") {
  if (!gpu::tcw_supported()) return;
  // GLM-4.7-Flash experts.down (64 experts of 2048 x 1536) at 4..9 mean rows (M = 64..144, top-4): grouped_tcv below
  // moe_tcw_min_mean (bench/results/2026-11-28-h200-gtcwmn64/final, -s45land).
  TiledView w;
  w.E = 64;
  w.N = 2048;
  w.K = 1536;
  for (bool half_cb : {true, false})
    for (int bits : {3, 4, 5}) {
      w.half_cb = half_cb;
      w.bits = bits;
      // KBIT_GTCW_MN64=0 in the environment restores 8 with the old tiles (grouped_tcw_mn64 false).
      if (std::getenv("KBIT_GTCW_MN64") == nullptr)
        CHECK(gpu::detail::grouped_tcw_mn64(w) == (bits == 3 || bits == 5 || half_cb));
      const int64_t from = ((bits == 4 && half_cb) || bits == 5) && gpu::detail::grouped_tcw_mn64(w) ? 6 : 8;
      for (int64_t mean = 4; mean <= 9; ++mean) {
        CAPTURE(half_cb);
        CAPTURE(bits);
        CAPTURE(mean);
        CHECK(gpu::choose_moe_kernel(64 * mean, w, Act::f16, 0) ==
              (mean >= from ? gpu::MoeKernel::grouped_tcw : gpu::MoeKernel::grouped_tcv));
      }
    }
}

TEST_CASE("gpu: grouped_tcw's workspace: refused without it, automatic runs another kernel") {
  // 2 experts x 80 rows: mean 80 rows per expert, which dispatch gives grouped_tcw on sm_90a.
  const int64_t E = 2, N = 64, K = 256, rows = 160;
  const QuantizedTensor q = random_weights(4, E, N, K, 77);
  const DeviceWeights w(q);
  DeviceBuf<uint16_t> A(size_t(rows * K)), C(size_t(rows * N));
  CUDA_REQUIRE(cudaMemset(A.p, 0, A.n * 2));
  const std::vector<int32_t> off = {0, 80, 160};
  DeviceBuf<int32_t> dOff(off);
  gpu::MoeArgs a;
  a.A = A.p, a.C = C.p, a.expert_offsets = dOff.p, a.total_rows = rows, a.w = w.view;
  const size_t need = gpu::moe_linear_workspace_bytes(rows, w.view, Act::f16, gpu::MoeKernel::grouped_tcw);
  CHECK(need >= size_t(rows * K * 2));  // the permuted activations
  a.kernel = gpu::MoeKernel::grouped_tcw;
  if (!gpu::tcw_supported()) {
    CHECK(gpu::moe_linear(a) == gpu::Status::bad_kernel);
    return;
  }
  CHECK(gpu::choose_moe_kernel(rows, w.view, Act::f16, 0) == gpu::MoeKernel::grouped_tcw);
  CHECK(gpu::moe_linear_workspace_bytes(rows, w.view, Act::f16) == need);
  CHECK(gpu::moe_linear(a) == gpu::Status::workspace_too_small);
  CHECK(std::string(gpu::status_message()).find("grouped_tcw") != std::string::npos);
  DeviceBuf<uint8_t> ws(need + 16);
  a.workspace = ws.p + 8, a.workspace_bytes = need + 8;
  CHECK(gpu::moe_linear(a) == gpu::Status::misaligned);
  a.workspace = nullptr, a.workspace_bytes = 0;
  a.kernel = gpu::MoeKernel::automatic;  // without the workspace: a kernel that needs none
  C.poison();
  CHECK(gpu::moe_linear(a) == gpu::Status::ok);
  size_t nonzero = 0;  // A = 0, so C = 0 (either sign)
  for (uint16_t v : C.host()) nonzero += (v & 0x7fffu) != 0;
  CHECK(nonzero == 0);
}

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: skipping the GPU kernel tests\n");
    return 77;
  }
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
