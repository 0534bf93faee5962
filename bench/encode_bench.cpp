// kbit-bench-encode: CPU encode-core throughput, weights per second per core, for k = 2..5 and
// both encoders (PERF.md target: >= 1 G weights/s per core at k = 4 with the bnb encoder).
//   block  - BlockEncoder::encode over an fp32 matrix, one thread: the encode core alone
//   tensor - quantize_tensor from BF16, one thread: conversion, the search encoder's amax pass
//            and the tiled writes included (what kbit-quantize pays per core)
//   tensor-mt - the same on all threads (wall time), to show the threading scales
// Median of --repeats runs. A benchmark, not a test: it checks nothing about speed.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "kbit/dtype.h"
#include "kbit/parallel.h"
#include "kbit/quantize.h"
#include "kbit/rng.h"

using namespace kbit;
using Clock = std::chrono::steady_clock;

namespace {

template <class Fn>
double median_seconds(int repeats, Fn&& fn) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    fn();
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kbit-bench-encode: CPU encode throughput (weights/s per core)"};
  int64_t N = 2048, K = 4096;
  int repeats = 5;
  std::string json_path;
  bool scalar_too = true;
  app.add_option("-N", N, "rows of the test matrix")->capture_default_str();
  app.add_option("-K", K, "columns (multiple of 32)")->capture_default_str();
  app.add_option("--repeats", repeats, "timed runs per configuration (median reported)")->capture_default_str();
  app.add_option("--json", json_path, "also write the results as JSON to this file");
  app.add_flag("!--no-scalar", scalar_too, "skip the scalar (no SIMD) rows");
  CLI11_PARSE(app, argc, argv);
  if (K % 32 != 0 || N < 1) {
    std::fprintf(stderr, "error: K must be a multiple of 32 and N >= 1\n");
    return 2;
  }

  Rng rng(1);
  std::vector<float> w(size_t(N * K));
  for (auto& v : w) v = float(rng.normal() * 0.02);
  std::vector<uint16_t> w_bf16(w.size());
  for (size_t i = 0; i < w.size(); ++i) w_bf16[i] = f32_to_bf16(w[i]);
  const double weights = double(N) * double(K);
  const int threads = resolve_threads(0);

  nlohmann::json rows = nlohmann::json::array();
  const SimdPath best = simd_path();
  std::printf("matrix %lld x %lld (%.1f M weights), %d hardware threads, best vector path %s\n", (long long)N,
              (long long)K, weights / 1e6, threads, simd_path_name(best));
  std::printf("%-7s %-3s %-6s %-9s %12s %14s\n", "encoder", "k", "path", "mode", "ms", "Mweights/s/core");
  std::vector<SimdPath> paths = {best};
  if (best == SimdPath::avx512) paths.push_back(SimdPath::avx2);
  if (scalar_too && best != SimdPath::scalar) paths.push_back(SimdPath::scalar);
  for (SimdPath path : paths) {
    set_simd_limit(path);
    for (Encoder enc : {Encoder::bnb, Encoder::search})
      for (int k = 2; k <= 5; ++k) {
        const Codebook cb = builtin_codebook("nf", k);
        const int s = enc == Encoder::bnb ? 0 : choose_scale_exp(0.2f);
        const BlockEncoder be(cb, enc, s);
        std::vector<uint32_t> words(size_t(N * K / 32 * k));
        std::vector<uint8_t> absmax(size_t(N * K / 32));
        const double t_block = median_seconds(repeats, [&] {
          for (int64_t b = 0; b < N * K / 32; ++b) absmax[size_t(b)] = be.encode(&w[size_t(b * 32)], &words[size_t(b * k)]);
        });
        QuantizeOptions one;
        one.encoder = enc;
        one.threads = 1;
        const TensorView view{w_bf16.data(), DType::BF16, 1, N, K, false};
        const double t_tensor = median_seconds(repeats, [&] { quantize_tensor("bench", view, cb, one); });
        QuantizeOptions all = one;
        all.threads = threads;
        const double t_mt = median_seconds(repeats, [&] { quantize_tensor("bench", view, cb, all); });
        for (auto [mode, t, per_core] : {std::tuple{"block", t_block, 1}, {"tensor", t_tensor, 1}, {"tensor-mt", t_mt, threads}}) {
          const double rate = weights / t / per_core;
          std::printf("%-7s %-3d %-6s %-9s %12.2f %14.1f\n", encoder_name(enc), k, simd_path_name(path), mode,
                      t * 1e3, rate / 1e6);
          rows.push_back({{"encoder", encoder_name(enc)}, {"bits", k}, {"path", simd_path_name(path)},
                          {"mode", mode}, {"threads", per_core}, {"seconds_median", t},
                          {"weights_per_s_per_core", rate}});
        }
      }
  }
  set_simd_limit(SimdPath::avx512);
  if (!json_path.empty()) {
    const nlohmann::json doc = {{"benchmark", "kbit-bench-encode"}, {"N", N}, {"K", K}, {"repeats", repeats},
                                {"hardware_threads", threads}, {"rows", rows}};
    std::ofstream(json_path) << doc.dump(2) << "\n";
  }
  return 0;
}
