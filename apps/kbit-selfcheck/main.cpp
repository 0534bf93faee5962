// kbit-selfcheck: checks the format core on this machine against the bundled data, then
// quantizes a seeded synthetic weight matrix with both encoders at k = 2..5 and reports the
// error (SQNR), bits per weight and encode throughput. The README's main job until
// kbit-quantize lands. Exit codes: 0 all checks passed, 1 a check failed, 2 usage or input error.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "kbit/error.h"
#include "kbit/golden.h"
#include "kbit/quantize.h"
#include "kbit/rng.h"
#include "reference/dequantize.h"

using namespace kbit;

namespace {

double sqnr_db(const std::vector<float>& x, const std::vector<float>& y) {
  double sig = 0, err = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sig += double(x[i]) * x[i];
    err += (double(x[i]) - y[i]) * (double(x[i]) - y[i]);
  }
  return err == 0 ? INFINITY : 10.0 * std::log10(sig / err);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kbit-selfcheck: verify the kbit format core on this machine"};
  std::string golden_path = KBIT_DATA_DIR "/golden/blocks_v1.txt";
  int64_t N = 512, K = 2048;
  uint64_t seed = 1;
  bool json = false;
  int threads = 0;
  app.add_option("--golden", golden_path, "golden blocks file")->capture_default_str();
  app.add_option("-N", N, "rows of the synthetic matrix")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("-K", K, "columns (multiple of 32)")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--seed", seed, "seed of the synthetic matrix")->capture_default_str();
  app.add_option("--threads", threads, "encoder threads (0: all)")->capture_default_str();
  app.add_flag("--json", json, "print one JSON document instead of tables");
  CLI11_PARSE(app, argc, argv);

  nlohmann::json report;
  bool ok = true;
  try {
    // 1. Golden blocks: exact bytes.
    const auto golden = read_golden(golden_path);
    int golden_fail = 0;
    for (const GoldenBlock& g : golden) {
      const BlockEncoder enc(builtin_codebook(g.codebook, g.bits), g.encoder, g.scale_exp);
      uint32_t words[kMaxBits];
      const uint8_t absmax = enc.encode(g.x.data(), words);
      bool same = absmax == g.absmax;
      for (int b = 0; b < g.bits; ++b) same = same && words[b] == g.words[size_t(b)];
      if (!same) {
        ++golden_fail;
        std::cerr << "golden mismatch: " << format_golden(g) << "\n";
      }
    }
    ok = ok && golden_fail == 0 && !golden.empty();
    report["golden"] = {{"file", golden_path}, {"blocks", golden.size()}, {"mismatches", golden_fail},
                        {"simd_path", simd_path_name(simd_path())}};
    if (!json)
      std::printf("golden blocks: %zu checked, %d mismatches (%s path) -> %s\n", golden.size(), golden_fail,
                  simd_path_name(simd_path()), golden_fail == 0 && !golden.empty() ? "PASS" : "FAIL");

    // 2. A synthetic weight matrix through quantize -> dequantize.
    Rng rng(seed);
    std::vector<float> w(size_t(N * K));
    for (auto& v : w) v = float(rng.normal() * 0.02);
    if (!json)
      std::printf("\nsynthetic N(0, 0.02^2) matrix %lld x %lld, seed %llu\n%-7s %-2s %10s %12s %10s %14s\n",
                  (long long)N, (long long)K, (unsigned long long)seed, "encoder", "k", "SQNR dB", "bits/weight",
                  "scale_exp", "Mweights/s");
    report["synthetic"] = nlohmann::json::array();
    for (Encoder e : {Encoder::search, Encoder::bnb})
      for (int k = 2; k <= 5; ++k) {
        QuantizeOptions opt;
        opt.encoder = e;
        opt.threads = threads;
        const auto t0 = std::chrono::steady_clock::now();
        const QuantizedTensor q = quantize_tensor("synthetic", {w.data(), DType::F32, 1, N, K, false},
                                                  builtin_codebook("nf", k), opt);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::vector<float> back(w.size());
        dequantize_ref(q.view(), back.data(), threads);
        const double db = sqnr_db(w, back);
        const double bpw = 8.0 * double(q.packed.size() * 4 + q.absmax.size()) / double(N * K);
        // Sanity floors well under the measured values (nf, Gaussian: ~7.4, 15, 21, 26 dB).
        const double floor_db = 6.0 * k - 6.0;
        const bool pass = std::isfinite(db) && db > floor_db;
        ok = ok && pass;
        report["synthetic"].push_back({{"encoder", encoder_name(e)}, {"bits", k}, {"sqnr_db", db},
                                       {"bits_per_weight", bpw}, {"scale_exp", q.scale_exp},
                                       {"weights_per_s", double(N * K) / s}, {"pass", pass}});
        if (!json)
          std::printf("%-7s %-2d %10.2f %12.3f %10d %14.1f %s\n", encoder_name(e), k, db, bpw, q.scale_exp,
                      double(N * K) / s / 1e6, pass ? "" : "FAIL (SQNR below floor)");
      }
  } catch (const Error& err) {
    std::cerr << "error: " << err.what() << "\n";
    return 2;
  }
  report["pass"] = ok;
  if (json)
    std::cout << report.dump(2) << "\n";
  else
    std::printf("\n%s\n", ok ? "selfcheck: PASS" : "selfcheck: FAIL");
  return ok ? 0 : 1;
}
