// kbit-verify: sweeps the GPU kernels of kbit::gpu over the shapes catalogue and checks every case
// against the CPU reference, cuBLAS and exact mode (runner.h, tolerances in tolerance.h), writes a
// repro file per failure, and with --time gives a first timing next to cuBLAS (docs/kbit-verify.md).
// --no-cublas makes a run that launches no cuBLAS kernel (for compute-sanitizer racecheck).
// Exit codes: 0 all cases passed (n/a and skipped allowed), 1 a case failed, 2 usage or input error,
// 3 no GPU or a CUDA/cuBLAS error outside the kernels under test, 77 no GPU with --skip-if-no-gpu.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cases.h"
#include "catalogue.h"
#include "kbit/error.h"
#include "kbit/safetensors.h"
#include "runner.h"

using namespace kbit;
using namespace kbit::verify;

namespace {

// Reports and repro files go through a temporary file and a rename, so a crash or a full disk
// never leaves a truncated JSON that looks complete. Returns false (and says why) on failure.
bool write_file(const std::string& path, const std::string& text) {
  try {
    kbit::st::write_text_atomic(path, text);
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbit-verify: cannot write %s: %s\n", path.c_str(), e.what());
    return false;
  }
}

constexpr int kExitPass = 0, kExitFail = 1, kExitUsage = 2, kExitCuda = 3, kExitSkip = 77;

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  return out;
}

std::string family_key(const CaseSpec& c) { return std::string(family_name(c.family)) + "." + c.kernel; }

void print_worst(const CaseOutcome& o) {
  for (const auto& ch : o.checks) {
    if (ch.pass()) continue;
    std::printf("    %s\n", ch.summary().c_str());
    for (size_t i = 0; i < ch.worst.size() && i < 3; ++i) {
      const auto& w = ch.worst[i];
      std::printf("      row %lld col %lld: got %.9g want %.9g tol %.3g (err/tol %.3g)\n", (long long)w.row,
                  (long long)w.col, w.got, w.ref, w.tol, w.ratio);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress survives a crash when piped to a file
  CLI::App app{"kbit-verify: check every kbit GPU kernel against the CPU reference, cuBLAS and exact mode"};
  std::string shapes_path = KBIT_DATA_DIR "/shapes.json";
  uint64_t seed = 1;
  bool quick = false, full = false, skip_no_gpu = false, time_mode = false, list = false, no_exact = false,
       no_rerun = false, verbose = false, no_cublas = false, pdl = false;
  std::string filter, kernels, json_path, repro_dir = "out/verify-repro", case_arg, time_m = "1,16,128", shard, range,
      m_arg;
  int threads = 0, time_bits = 4, time_iters = 20, time_warmup = 5;
  int64_t samples = 4096;
  app.add_option("--shapes", shapes_path, "shapes catalogue")->capture_default_str();
  app.add_option("--seed", seed, "master seed (each case's seeds derive from it and its name)")->capture_default_str();
  auto* q = app.add_flag("--quick", quick, "the quick sweep (default; about a minute on an H100)");
  app.add_flag("--full", full, "everything: all shapes, every (k, dtype) to M = 128, larger M")->excludes(q);
  app.add_option("--filter", filter, "ECMAScript regex searched in case names");
  auto* m_opt = app.add_option("--m", m_arg,
                 "comma list: the sweep's dense M and MoE tokens instead of its own (e.g. 160,288,384; each shape "
                 "then takes one (k, dtype) per M in rotation, every one at M = 1 and 4 (MoE: 1 token) with --full)");
  app.add_option("--kernels", kernels,
                 "comma list: dense|moe|dequant, a kernel (v0, gemv, tcv, tcw, mma, dequant_cublas, automatic, grouped_gemv, "
                 "grouped_tcv, grouped_mma, grouped_tcw, fast) or family.kernel (moe.v0)");
  app.add_option("--shard", shard,
                 "I/N: run only every N-th case starting at I (0 <= I < N), so N processes can split a sweep");
  app.add_option("--range", range,
                 "A:B: then run only positions A..B-1 of the (sharded) list, to resume a run cut by a time limit");
  app.add_option("--case", case_arg, "rerun one case: a repro file or a case name (with --seed)")->excludes(m_opt);
  app.add_option("--json", json_path, "write every case and the summary as JSON");
  app.add_option("--repro-dir", repro_dir, "one repro file per failed case")->capture_default_str();
  app.add_option("--threads", threads, "CPU threads for references and comparisons (0: all)")->capture_default_str();
  app.add_option("--samples", samples, "random sampled elements per large case (plus all edges)")->capture_default_str();
  app.add_flag("--no-exact", no_exact, "skip the exact-mode launch (c)");
  app.add_flag("--no-rerun", no_rerun, "skip the second launch on the dirty workspace");
  app.add_flag("--list", list, "print the case names and exit");
  app.add_flag("--skip-if-no-gpu", skip_no_gpu, "exit 77 (ctest: skipped) when no GPU is present");
  app.add_flag("-v,--verbose", verbose, "print every check of every case");
  auto* nc = app.add_flag("--no-cublas", no_cublas,
                          "launch no cuBLAS kernel (for compute-sanitizer): cuBLAS checks (b) and exact_cublas "
                          "skipped, tolerance statistics on the CPU, dequant_cublas cases skipped");
  app.add_flag("--pdl", pdl, "launch with LinearArgs::pdl / MoeArgs::pdl (programmatic dependent launch)");
  app.add_flag("--time", time_mode, "after the sweep, time each kernel family on the catalogue's block shapes")
      ->excludes(nc);
  app.add_option("--time-m", time_m, "M (tokens for MoE) list for --time")->capture_default_str();
  app.add_option("--time-bits", time_bits, "k for --time")->capture_default_str();
  app.add_option("--time-iters", time_iters, "timed launches per row (median)")->capture_default_str();
  app.add_option("--time-warmup", time_warmup, "warm-up launches per row")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  (void)quick;

  std::vector<CaseSpec> cases;
  try {
    if (!case_arg.empty()) {
      if (std::filesystem::exists(case_arg)) {
        const Repro r = read_repro(case_arg);
        if (app.count("--seed") == 0) seed = r.master_seed;
        cases.push_back(r.spec);
      } else {
        cases.push_back(parse_case_name(case_arg));
      }
    } else {
      const Catalogue cat = load_catalogue(shapes_path);
      PlanOptions opt;
      opt.full = full;
      opt.seed = seed;
      opt.filter = filter;
      opt.kernels = split_list(kernels);
      if (app.count("--m") > 0) opt.m = parse_m_list(m_arg);
      cases = plan_cases(cat, opt);
    }
    cases = select_cases(std::move(cases), shard, range);
    if (cases.empty())
      throw Error("no case selected (check --filter, --kernels, --shard and --range); an empty run would pass "
                  "without checking anything");
  } catch (const Error& e) {
    std::fprintf(stderr, "kbit-verify: %s\n", e.what());
    return kExitUsage;
  }
  if (list) {
    size_t skipped = 0;
    for (const auto& c : cases) {
      const std::string why = skip_reason(c, no_cublas);
      skipped += !why.empty();
      std::printf("%s%s%s\n", c.name().c_str(), why.empty() ? "" : "  skipped: ", why.c_str());
    }
    std::printf("%zu cases, %zu skipped\n", cases.size(), skipped);
    return kExitPass;
  }

  std::string why;
  if (!cuda_device_available(&why)) {
    std::fprintf(stderr, "kbit-verify: no usable CUDA device (%s)%s\n", why.c_str(),
                 skip_no_gpu ? "; skipping (exit 77)" : "; use --skip-if-no-gpu to skip");
    return skip_no_gpu ? kExitSkip : kExitCuda;
  }

  nlohmann::json report = {{"tool", "kbit-verify"}, {"master_seed", seed}, {"mode", full ? "full" : "quick"},
                           {"cublas", no_cublas ? "skipped (--no-cublas)" : "used"}, {"pdl", pdl}};
  std::map<std::string, std::array<int, 4>> table;  // family.kernel -> pass, fail, n/a, skipped
  int failed = 0;
  try {
    RunnerOptions ropt;
    ropt.threads = threads;
    ropt.sample_budget = samples;
    ropt.exact = !no_exact;
    ropt.rerun = !no_rerun;
    ropt.cublas = !no_cublas;
    ropt.pdl = pdl;
    Runner runner(seed, ropt);
    std::printf("kbit-verify: %zu cases on %s, master seed %llu%s\n", cases.size(),
                runner.device_description().c_str(), (unsigned long long)seed,
                no_cublas ? "; --no-cublas: no cuBLAS call, checks cublas/exact_cublas and dequant_cublas cases skipped"
                          : "");
    report["device"] = runner.device_description();
    const bool tty = isatty(STDOUT_FILENO) && !verbose;
    auto& jcases = report["cases"] = nlohmann::json::array();
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < cases.size(); ++i) {
      const CaseSpec& c = cases[i];
      CaseOutcome o = runner.run(c);
      auto& row = table[family_key(c)];
      row[o.status == "pass" ? 0 : o.status == "fail" ? 1 : o.status == "n/a" ? 2 : 3]++;
      jcases.push_back(outcome_json(o, seed));
      const bool bad = o.status == "fail";
      if (tty && !bad) {
        int passed = 0, skipped = 0;
        for (const auto& [k, v] : table) passed += v[0], skipped += v[3];
        std::printf("\r[%5zu/%zu] pass %d fail %d skipped %d  %-80.80s", i + 1, cases.size(), passed, failed, skipped,
                    c.name().c_str());
        std::fflush(stdout);
      } else {
        double worst = 0;
        for (const auto& ch : o.checks) worst = std::max(worst, ch.max_ratio);
        std::printf("%s[%5zu/%zu] %-4s %s seed %llu%s%s  max err/tol %.3g  %.0f ms%s%s\n", tty ? "\r" : "", i + 1,
                    cases.size(), o.status.c_str(), c.name().c_str(), (unsigned long long)c.input_seed(seed),
                    o.chosen.empty() ? "" : " -> ", o.chosen.c_str(), worst, o.ms, o.message.empty() ? "" : "  ",
                    o.message.c_str());
        if (verbose)
          for (const auto& ch : o.checks) std::printf("    %s\n", ch.summary().c_str());
      }
      if (bad) {
        ++failed;
        print_worst(o);
        std::filesystem::create_directories(repro_dir);
        const std::string path = repro_dir + "/" + repro_filename(c);
        if (write_file(path, outcome_json(o, seed).dump(2) + "\n"))
          std::printf("    repro: %s  (kbit-verify --case %s)\n", path.c_str(), path.c_str());
      }
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (tty) std::printf("\n");

    std::printf("\n%-24s %7s %7s %7s %7s\n", "family.kernel", "pass", "fail", "n/a", "skipped");
    auto& jsum = report["summary"] = nlohmann::json::object();
    std::array<int, 4> total{};
    for (const auto& [k, v] : table) {
      std::printf("%-24s %7d %7d %7d %7d\n", k.c_str(), v[0], v[1], v[2], v[3]);
      jsum[k] = {{"pass", v[0]}, {"fail", v[1]}, {"n/a", v[2]}, {"skipped", v[3]}};
      for (int j = 0; j < 4; ++j) total[size_t(j)] += v[size_t(j)];
    }
    std::printf("%zu cases in %.1f s: %d pass, %d fail, %d n/a, %d skipped%s: %s\n", cases.size(), secs, total[0],
                total[1], total[2], total[3], no_cublas ? " (--no-cublas)" : "", failed ? "FAIL" : "PASS");
    report["seconds"] = secs;
    report["failed"] = failed;
    report["skipped"] = total[3];

    if (time_mode) {
      // First simple timing (kbit-bench will do it properly): block GEMMs of each catalogue model,
      // f16, k = --time-bits, each family's kernels and cuBLAS fp16 on the dequantized weights.
      const Catalogue cat = load_catalogue(shapes_path);
      auto& jt = report["timing"] = nlohmann::json::array();
      std::printf("\n--time: median of %d launches after %d warm-up, CUDA events per launch, k = %d, f16\n", time_iters,
                  time_warmup, time_bits);
      std::printf("%-46s %5s %-15s %10s %10s %8s  %s\n", "shape", "M", "kernel", "kbit us", "cuBLAS us", "cuB/kbit",
                  "verified / weights");
      for (const Model& m : cat.models)
        for (const GemmShape& s : m.gemms) {
          if (!s.block) continue;
          for (const auto& mstr : split_list(time_m)) {
            CaseSpec c;
            c.family = s.moe ? Family::moe : Family::dense;
            c.label = s.label();
            c.E = s.E, c.N = s.N, c.K = s.K, c.top_k = s.top_k, c.routing = Routing::realistic;
            c.M = std::stoll(mstr), c.bits = time_bits, c.dtype = Precision::f16;
            for (const auto& k : family_kernels(c.family)) {
              c.kernel = k;
              if (!kernel_selected(split_list(kernels), c.family, k)) continue;
              const Runner::Timing t = runner.time_case(c, time_warmup, time_iters);
              if (t.outcome.status != "pass") {
                std::printf("%-46s %5lld %-15s %10s %10s %8s  %s\n", c.label.c_str(), (long long)c.M, k.c_str(), "-",
                            "-", "-", t.outcome.status == "n/a" ? "n/a" : "FAIL (not timed)");
                if (t.outcome.status == "fail") ++failed;
                continue;
              }
              const double ratio = t.kbit_us > 0 ? t.cublas_us / t.kbit_us : 0;
              std::printf("%-46s %5lld %-15s %10.2f %10.2f %7.2fx  PASS / %s\n", c.label.c_str(), (long long)c.M,
                          (k + (t.outcome.chosen.empty() ? "" : "->" + t.outcome.chosen)).c_str(), t.kbit_us,
                          t.cublas_us, ratio, t.rotation.c_str());
              jt.push_back({{"case", c.name()}, {"kbit_us", t.kbit_us}, {"cublas_f16_us", t.cublas_us},
                            {"cublas_over_kbit", ratio}, {"weights", t.rotation}, {"verified", "pass"},
                            {"chosen", t.outcome.chosen}});
            }
          }
        }
      report["failed"] = failed;
    }
  } catch (const CudaFailure& e) {
    std::fprintf(stderr, "\nkbit-verify: CUDA error: %s\n", e.what());
    report["cuda_error"] = e.what();
    if (!json_path.empty()) write_file(json_path, report.dump(1) + "\n");
    return kExitCuda;
  } catch (const Error& e) {
    std::fprintf(stderr, "\nkbit-verify: %s\n", e.what());
    return kExitUsage;
  }
  if (!json_path.empty() && !write_file(json_path, report.dump(1) + "\n")) return kExitUsage;
  return failed ? kExitFail : kExitPass;
}
