// kbit-quantize: quantizes a Hugging Face safetensors checkpoint (BF16/F16/F32, block-scaled
// F8_E4M3) into the kbit format (FORMAT §7), and `kbit-quantize check` validates an output.
// Thin: flags here, the work in lib/kbit/quantize_{plan,run,check}. docs/kbit-quantize.md.
//
// Exit codes: 0 ok; 1 check failed (verification); 2 usage (bad flags, existing output without
// --overwrite, an interrupted run without --resume); 3 input or format error (unreadable or
// malformed source, unsupported tensor, NaN/Inf in a weight); 4 runtime or I/O error (disk full,
// permissions, out of memory, interrupted). Progress and logs go to stderr, data to stdout.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "kbit/quantize_check.h"
#include "kbit/parallel.h"
#include "kbit/quantize_run.h"

using namespace kbit;
namespace fs = std::filesystem;

namespace {

constexpr int kExitOk = 0, kExitCheckFailed = 1, kExitUsage = 2, kExitInput = 3, kExitRuntime = 4;

int report_error(const char* tool) {
  try {
    throw;
  } catch (const UsageError& e) {
    std::cerr << tool << ": error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const IoError& e) {
    std::cerr << tool << ": I/O error: " << e.what() << "\n";
    return kExitRuntime;
  } catch (const Error& e) {
    std::cerr << tool << ": input error: " << e.what() << "\n";
    return kExitInput;
  } catch (const fs::filesystem_error& e) {
    std::cerr << tool << ": I/O error: " << e.what() << "\n";
    return kExitRuntime;
  } catch (const std::bad_alloc&) {
    std::cerr << tool << ": out of memory (try fewer --threads or a machine with more RAM)\n";
    return kExitRuntime;
  } catch (const std::exception& e) {
    std::cerr << tool << ": error: " << e.what() << "\n";
    return kExitRuntime;
  }
}

int parse_cli(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help or the parse error
    return rc == 0 ? 0 : kExitUsage;
  }
  return -1;
}

std::string shape_str(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string hms(double s) {
  char buf[32];
  const int t = int(std::max(0.0, s) + 0.5);
  std::snprintf(buf, sizeof buf, "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60);
  return buf;
}

// A bar on a TTY (redrawn at most 10 times a second), plain lines otherwise; always stderr.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(bool quiet) : quiet_(quiet), tty_(isatty(2)) {}
  void operator()(const ProgressEvent& ev) {
    if (quiet_) return;
    const auto now = std::chrono::steady_clock::now();
    const double el = std::chrono::duration<double>(now - start_).count();
    if (!tty_) {
      if (ev.resumed_shard)
        std::fprintf(stderr, "[%5zu/%5zu] %s: finished earlier, checked, kept\n", ev.done, ev.total, ev.name.c_str());
      else if (ev.quantized)
        std::fprintf(stderr, "[%5zu/%5zu] %s %s %s -> k=%d s=%d  SQNR %.2f dB  max|err| %.3g\n", ev.done, ev.total,
                     ev.name.c_str(), ev.quantized->dtype.c_str(), shape_str(ev.quantized->shape).c_str(),
                     ev.quantized->bits, ev.quantized->scale_exp, ev.quantized->err.sqnr_db(), ev.quantized->err.max_abs_err);
      else
        std::fprintf(stderr, "[%5zu/%5zu] %s copied\n", ev.done, ev.total, ev.name.c_str());
      return;
    }
    if (ev.done < ev.total && std::chrono::duration<double>(now - last_).count() < 0.1) return;
    last_ = now;
    const double frac = ev.bytes_total ? double(ev.bytes_done) / double(ev.bytes_total) : 1.0;
    const double rate = el > 0 ? double(ev.bytes_done) / el : 0;
    const double eta = rate > 0 ? double(ev.bytes_total - ev.bytes_done) / rate : 0;
    winsize ws{};
    const int width = ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 40 ? ws.ws_col : 100;
    constexpr int kBar = 24;
    std::string bar(size_t(kBar), ' ');
    for (int i = 0; i < int(frac * kBar); ++i) bar[size_t(i)] = '#';
    char head[160];
    std::snprintf(head, sizeof head, "[%s] %5.1f%% %zu/%zu %s/s ETA %s ", bar.c_str(), 100 * frac, ev.done, ev.total,
                  format_bytes(uint64_t(rate)).c_str(), hms(eta).c_str());
    std::string line = head + ev.name;
    if (int(line.size()) > width - 1) line.resize(size_t(width - 1));
    std::fprintf(stderr, "\r%-*s", width - 1, line.c_str());
    if (ev.done == ev.total) std::fprintf(stderr, "\n");
  }

 private:
  bool quiet_, tty_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
};

void print_summary(const RunResult& r, const RunOptions& opt) {
  const Plan& p = r.plan;
  std::printf("kbit-quantize%s: %s -> %s\n", opt.dry_run ? " (dry run, nothing written)" : "", opt.source.c_str(),
              r.output.c_str());
  if (r.already_complete) {
    std::printf("output already complete (no %s); nothing to do. Verify it with: kbit-quantize check %s --source %s\n",
                partial_dir(r.output).filename().c_str(), r.output.c_str(), opt.source.c_str());
    return;
  }
  size_t groups = 0;
  for (const auto& g : p.groups) groups += g.second.size() > 1;
  std::printf("%s %zu tensors (%zu expert groups sharing one codebook and scale), copied %zu unchanged, consumed %zu\n",
              opt.dry_run ? "would quantize" : "quantized", p.count(Action::quantize), groups, p.count(Action::copy),
              p.count(Action::drop));
  if (opt.dry_run) {
    std::printf("\nto quantize:\n");
    for (const auto& t : p.tensors)
      if (t.action == Action::quantize)
        std::printf("  k=%d  %-5s %-22s %10s  %s\n", t.bits, t.src.dtype.c_str(), shape_str(t.src.shape).c_str(),
                    format_bytes(t.out_bytes).c_str(), t.src.name.c_str());
  }
  std::map<std::string, size_t> by_cat;
  for (const auto& t : p.tensors)
    if (t.action != Action::quantize) ++by_cat[t.category];
  if (p.count(Action::quantize) < p.tensors.size()) {
    std::printf("\nnot quantized (%zu):", p.tensors.size() - p.count(Action::quantize));
    for (const auto& [c, n] : by_cat) std::printf(" %s %zu;", c.c_str(), n);
    std::printf("\n");
    for (const auto& t : p.tensors)
      if (t.action != Action::quantize)
        std::printf("  %-8s %-5s %-22s %s: %s\n", t.action == Action::drop ? "consumed" : "copied", t.src.dtype.c_str(),
                    shape_str(t.src.shape).c_str(), t.src.name.c_str(), t.reason.c_str());
  }
  const double bpw = p.quantized_weights ? 8.0 * double(p.quantized_out_bytes) / double(p.quantized_weights) : 0;
  std::printf("\nsize: %s -> %s (%.2fx smaller); quantized tensors: %.3f bits/weight\n", format_bytes(p.in_bytes).c_str(),
              format_bytes(p.out_bytes).c_str(), p.out_bytes ? double(p.in_bytes) / double(p.out_bytes) : 0.0, bpw);
  std::printf("shards (max %s):", format_bytes(opt.plan.max_shard_bytes).c_str());
  for (const auto& s : p.shards) {
    const bool resumed = std::find(r.shards_resumed.begin(), r.shards_resumed.end(), s.file) != r.shards_resumed.end();
    std::printf(" %s (%s%s)", s.file.c_str(), format_bytes(s.bytes).c_str(), resumed ? ", kept from the earlier run" : "");
  }
  std::printf("\n");
  if (!r.quantized.empty()) {
    std::vector<const TensorResult*> sorted;
    for (const auto& t : r.quantized) sorted.push_back(&t);
    std::stable_sort(sorted.begin(), sorted.end(), [](auto a, auto b) { return a->err.nmse() > b->err.nmse(); });
    const size_t show = std::min<size_t>(sorted.size(), 10);
    std::printf("\nerror against the source, worst %zu of %zu (all of them in --json):\n  %9s %11s %4s %4s  %s\n", show,
                sorted.size(), "SQNR dB", "max|err|", "k", "s", "tensor");
    for (size_t i = 0; i < show; ++i)
      std::printf("  %9.2f %11.4g %4d %4d  %s\n", sorted[i]->err.sqnr_db(), sorted[i]->err.max_abs_err, sorted[i]->bits,
                  sorted[i]->scale_exp, sorted[i]->name.c_str());
    double sig = 0, err = 0;
    for (const auto& t : r.quantized) {
      sig += t.err.sum_sq_ref;
      err += t.err.sum_sq_err;
    }
    std::printf("  all quantized tensors together: SQNR %.2f dB\n", err > 0 ? 10 * std::log10(sig / err) : INFINITY);
  }
  if (!r.copied_files.empty() || !r.skipped_files.empty()) {
    std::printf("\nother files: copied %zu", r.copied_files.size());
    for (const auto& f : r.copied_files) std::printf(" %s", f.c_str());
    if (!r.skipped_files.empty()) {
      std::printf("; not copied (weights in other formats or outside the checkpoint):");
      for (const auto& f : r.skipped_files) std::printf(" %s", f.c_str());
    }
    std::printf("\n");
  }
  if (!opt.dry_run)
    std::printf("\ntime %.2f s: %s/s of source, %.1f M weights/s quantized, %d threads\n", r.wall_s,
                format_bytes(uint64_t(double(p.in_bytes) / std::max(r.wall_s, 1e-9))).c_str(),
                double(p.quantized_weights) / std::max(r.wall_s, 1e-9) / 1e6, resolve_threads(opt.threads));
  if (!opt.dry_run)
    std::printf("done: %s\nverify: kbit-quantize check %s --source %s\n", r.output.c_str(), r.output.c_str(),
                opt.source.c_str());
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) std::fprintf(stderr, "%s%s\n", w.starts_with("WARNING") ? "" : "warning: ", w.c_str());
}

// The interruption flag: a signal handler may only set it; the run stops at the next tensor.
volatile std::sig_atomic_t g_interrupted = 0;

int quantize_main(int argc, char** argv) {
  CLI::App app{"kbit-quantize: quantize a safetensors checkpoint into the kbit format (FORMAT §7).\n"
               "Usage: kbit-quantize SRC OUT [options]    |    kbit-quantize check OUT [--source SRC]"};
  RunOptions opt;
  std::string source, output, encoder = "search", max_shard = "5GB";
  std::vector<std::string> bits_for;
  bool json = false, quiet = false;
  app.add_option("SRC", source, "checkpoint directory (config.json + model.safetensors or shards + index) or one .safetensors file")
      ->required();
  app.add_option("OUT", output, "output directory (written as OUT.kbit-partial, renamed when complete)")->required();
  app.add_option("--bits,-b", opt.plan.bits, "bits per weight index, 2..5")->capture_default_str()->check(CLI::Range(2, 5));
  app.add_option("--bits-for", bits_for, "PATTERN=K: K bits for tensors whose name matches the regex (repeatable; first match wins)");
  app.add_option("--codebook", opt.plan.codebook, "nf, bnf, or a file of 2^k ascending floats")->capture_default_str();
  app.add_option("--encoder", encoder, "search (default: per-tensor scale, best E4M4 neighbour) or bnb (upstream compatible)")
      ->capture_default_str()->check(CLI::IsMember({"search", "bnb"}));
  app.add_option("--include", opt.plan.include, "regex: quantize matching tensors even if a default rule skips them (repeatable)");
  app.add_option("--exclude", opt.plan.exclude, "regex: never quantize matching tensors (repeatable; wins over --include)");
  app.add_flag("--include-lm-head", opt.plan.include_lm_head, "quantize lm_head too");
  app.add_option("--max-shard-size", max_shard, "largest output shard, e.g. 5GB, 500MB, 2GiB")->capture_default_str();
  app.add_option("--threads,-t", opt.threads, "encoder threads (0: all cores)")->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_flag("--dry-run,-n", opt.dry_run, "print what would be quantized or skipped, sizes and bits per weight; write nothing");
  app.add_flag("--overwrite", opt.overwrite, "replace an existing OUT (or an interrupted OUT.kbit-partial)");
  app.add_flag("--resume", opt.resume, "continue an interrupted run: keep its finished shards after checking them");
  app.add_flag("--json", json, "print the summary as one JSON document on stdout");
  app.add_flag("--quiet,-q", quiet, "no progress output");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  try {
    opt.source = source;
    opt.output = output;
    opt.plan.encoder = parse_encoder(encoder);
    try {
      opt.plan.max_shard_bytes = parse_size(max_shard);
      for (const auto& b : bits_for) opt.plan.bits_for.push_back(parse_bits_override(b));
      if (opt.overwrite && opt.resume) throw Error("--overwrite and --resume exclude each other");
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      throw UsageError(e.what());
    }
    // Test hook (docs/kbit-quantize.md): KBIT_QUANTIZE_FAIL_AFTER=N[:hard] stops after N tensors.
    if (const char* f = std::getenv("KBIT_QUANTIZE_FAIL_AFTER")) {
      opt.fail_after = std::atoll(f);
      opt.fail_hard = std::string(f).ends_with(":hard");
    }
    std::signal(SIGINT, [](int) { g_interrupted = 1; });
    std::signal(SIGTERM, [](int) { g_interrupted = 1; });
    ProgressPrinter printer(quiet);
    const RunResult r = run_quantize(opt, [&](const ProgressEvent& ev) {
      printer(ev);
      if (g_interrupted)
        throw IoError("interrupted; the finished shards are kept in " + partial_dir(opt.output).string() +
                      ": run again with --resume to continue");
    });
    print_warnings(r.warnings);
    if (json)
      std::cout << summary_json(r, opt).dump(2) << "\n";
    else
      print_summary(r, opt);
    return kExitOk;
  } catch (...) {
    return report_error("kbit-quantize");
  }
}

int check_main(int argc, char** argv) {
  CLI::App app{"kbit-quantize check: validate a kbit checkpoint; with --source, dequantize every tensor, compare it "
               "with the source and re-encode it bit for bit"};
  CheckOptions opt;
  std::string output, source;
  double max_nmse = -1;
  bool json = false, quiet = false, no_reencode = false;
  app.add_option("OUT", output, "output of kbit-quantize (directory or .safetensors file)")->required();
  app.add_option("--source", source, "the checkpoint it was made from");
  app.add_option("--max-nmse", max_nmse, "fail a tensor whose NMSE vs the source exceeds this (default per k: 10^-(6k-9)/10, i.e. SQNR >= 6k-9 dB)");
  app.add_flag("--no-reencode", no_reencode, "skip the bit-exact re-encoding comparison (faster)");
  app.add_option("--threads,-t", opt.threads, "threads (0: all cores)")->check(CLI::NonNegativeNumber);
  app.add_flag("--json", json, "print the report as one JSON document on stdout");
  app.add_flag("--quiet,-q", quiet, "no progress output");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;
  try {
    opt.output = output;
    if (!source.empty()) opt.source = fs::path(source);
    if (max_nmse >= 0) opt.max_nmse = max_nmse;
    opt.reencode = !no_reencode;
    const bool tty = isatty(2);
    const CheckResult r = check_output(opt, [&](size_t done, size_t total, const std::string& name) {
      if (quiet || !tty) return;
      std::fprintf(stderr, "\r[%zu/%zu] %-70.70s", done, total, name.c_str());
      if (done == total) std::fprintf(stderr, "\n");
    });
    if (tty && !quiet && opt.source) std::fprintf(stderr, "\n");
    if (json) {
      std::cout << check_json(r, opt).dump(2) << "\n";
    } else {
      size_t compared = 0, identical = 0;
      for (const auto& t : r.tensors) {
        compared += t.compared;
        identical += t.reencoded_identical;
      }
      std::printf("kbit-quantize check: %s%s\n", output.c_str(), source.empty() ? "" : (" against " + source).c_str());
      std::printf("quantized tensors: %zu (metadata, shapes, codebooks, padding checked)", r.tensors.size());
      if (opt.source)
        std::printf("; %zu compared with the source, %zu re-encoded bit-identical; copied tensors: %zu of %zu identical",
                    compared, identical, r.copied_identical, r.copied_checked);
      std::printf("\n");
      if (compared) {
        std::vector<const CheckedTensor*> sorted;
        for (const auto& t : r.tensors)
          if (t.compared) sorted.push_back(&t);
        std::stable_sort(sorted.begin(), sorted.end(), [](auto a, auto b) { return a->err.nmse() > b->err.nmse(); });
        std::printf("worst tensors:\n  %9s %11s %11s %3s  %s\n", "SQNR dB", "NMSE", "max|err|", "k", "tensor");
        for (size_t i = 0; i < std::min<size_t>(sorted.size(), 10); ++i)
          std::printf("  %9.2f %11.3g %11.4g %3d  %s%s\n", sorted[i]->err.sqnr_db(), sorted[i]->err.nmse(),
                      sorted[i]->err.max_abs_err, sorted[i]->bits, sorted[i]->name.c_str(),
                      sorted[i]->problems.empty() ? "" : "  FAIL");
      }
      for (const auto& n : r.notes) std::printf("note: %s\n", n.c_str());
      for (const auto& p : r.problems) std::printf("FAIL: %s\n", p.c_str());
      std::printf("check: %s (%.2f s)\n", r.ok() ? "PASS" : "FAIL", r.wall_s);
    }
    return r.ok() ? kExitOk : kExitCheckFailed;
  } catch (...) {
    return report_error("kbit-quantize check");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "check") return check_main(argc - 1, argv + 1);
  return quantize_main(argc, argv);
}
