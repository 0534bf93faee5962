// kbit-bench: shape sweeps of the kbit kernels against cuBLAS (docs/kbit-bench.md).
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench_core.h"
#include "catalogue.h"
#include "gpu_runner.h"
#include "kbit/safetensors.h"
#include "report.h"

using namespace kbit::bench;

namespace {
volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_signal(int) { g_stop = 1; }

// Reports go through the project's atomic writer (temp file, fsync, rename): a file on disk is
// always whole.
void write_file(const std::string& path, const std::string& text) { kbit::st::write_text_atomic(path, text); }
// Live clocks, power and temperature of GPU 0 as nvidia-smi reads them now ("" without nvidia-smi).
std::string live_clocks() {
  std::string out;
  if (FILE* p = popen("nvidia-smi -i 0 --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active"
                      " --format=csv,noheader 2>/dev/null", "r")) {
    char b[256] = {0};
    if (std::fgets(b, sizeof b, p)) out = b;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (out.empty()) return out;
  return "SM, memory, power, temperature, throttle reasons: " + out;
}
// The terminal table, then each requested file.
void write_outputs(const Report& rep, const std::string& md, const std::string& csv, const std::string& json,
                   const std::string& svg_dir) {
  std::cout << format_table(rep);
  if (!md.empty()) write_file(md, format_markdown(rep));
  if (!csv.empty()) write_file(csv, format_csv(rep));
  if (!json.empty()) write_file(json, to_json(rep).dump(1) + "\n");
  if (!svg_dir.empty()) {
    std::filesystem::create_directories(svg_dir);
    for (const auto& [name, svg] : report_charts(rep)) write_file(svg_dir + "/" + name, svg);
  }
}
Report read_report(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  return report_from_json(nlohmann::json::parse(f));
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kbit-bench: kbit kernels vs cuBLAS over the shapes catalogue (docs/kbit-bench.md)"};
  std::string shapes = KBIT_DATA_DIR "/shapes.json", md, csv, json, svg_dir;
  SweepOptions o;
  GpuOptions g;
  bool quick = false, dry_run = false, all_shapes = false;
  app.add_option("--shapes", shapes, "shapes catalogue");
  app.add_option("--models", o.models, "models (default: all)")->delimiter(',');
  CLI::Option* opt_m = app.add_option("--M", o.Ms, "token counts")->delimiter(',');
  app.add_option("--bits", o.bits, "k values (2..5)")->delimiter(',');
  CLI::Option* opt_dtypes = app.add_option("--dtypes", o.dtypes, "f16,bf16")->delimiter(',');
  CLI::Option* opt_kernels = app.add_option("--kernels", o.kernels, "kbit kernels (default: all)")->delimiter(',');
  CLI::Option* opt_v0 = app.add_option("--v0-max-m", o.v0_max_m, "largest M for the slow v0 kernels");
  app.add_flag("--non-block", all_shapes, "also shapes with block = false");
  app.add_flag("--hot", g.hot, "one weight copy (rows labelled HOT)");
  app.add_option("--replays", g.replays, "graph replays per row")->check(CLI::Range(3, 1000));
  app.add_option("--threads", g.threads, "CPU threads (0: all)");
  // --quick fixes M, dtypes, kernels and v0: say so rather than drop those options silently
  app.add_flag("--quick", quick, "about a minute: 2 models, M 1,16,128, f16, k 4, no v0 (keeps --models, --bits, --replays)")
      ->excludes(opt_m)
      ->excludes(opt_dtypes)
      ->excludes(opt_kernels)
      ->excludes(opt_v0);
  app.add_flag("--dry-run", dry_run, "print the plan size and time estimate, run nothing");
  app.add_option("--markdown", md, "markdown report");
  app.add_option("--csv", csv, "CSV report");
  app.add_option("--json", json, "JSON report (schema kbit-bench/1)");
  app.add_option("--svg-dir", svg_dir, "directory for SVG charts");
  std::string commit;
  app.add_option("--git-commit", commit, "commit to record (default: git rev-parse HEAD of the source tree)");
  std::string ca, cb;
  double threshold = 0.02;
  bool all_rows = false;
  CLI::App* cmp = app.add_subcommand("compare", "compare two JSON reports; exit 1 on a regression");
  cmp->add_option("A", ca, "baseline report")->required();
  cmp->add_option("B", cb, "new report")->required();
  cmp->add_option("--threshold", threshold, "relative change that must also be exceeded (default 0.02)");
  cmp->add_flag("--all", all_rows, "show every row, not only flagged ones");
  std::string rin;
  CLI::App* rpt = app.add_subcommand("report", "re-render a JSON report (ratios and totals recomputed) as a table, "
                                               "markdown, CSV and SVG; no GPU needed");
  rpt->add_option("JSON", rin, "kbit-bench JSON report")->required();
  rpt->add_option("--markdown", md, "markdown report");
  rpt->add_option("--csv", csv, "CSV report");
  rpt->add_option("--svg-dir", svg_dir, "directory for SVG charts");
  CLI11_PARSE(app, argc, argv);

  try {
    if (*cmp) {
      const CompareResult r = compare_rows(read_report(ca).rows, read_report(cb).rows, {threshold});
      std::cout << format_compare(r, !all_rows);
      return r.regressions ? 1 : 0;
    }
    if (*rpt) {
      Report rep = read_report(rin);
      fill_ratios(rep.rows);
      rep.totals = make_totals(rep.rows);
      write_outputs(rep, md, csv, "", svg_dir);
      return 0;
    }
    if (quick) {
      SweepOptions q = quick_options();
      if (app.count("--models")) q.models = o.models;
      if (app.count("--bits")) q.bits = o.bits;
      o = q;
      if (!app.count("--replays")) g.replays = 5;
    }
    o.include_non_block = all_shapes;
    const kbit::verify::Catalogue cat = kbit::verify::load_catalogue(shapes);
    const std::vector<PlannedCase> plan = plan_sweep(cat, o);
    const Estimate est = estimate_plan(plan, g.replays);
    std::printf("kbit-bench: %d configurations, estimated %.0f s on an H100 (model in docs/kbit-bench.md)\n", est.cases,
                est.seconds);
    if (dry_run) return 0;
    std::string why;
    if (!gpu_available(&why)) {
      std::fprintf(stderr, "kbit-bench: no GPU (%s)\n", why.c_str());
      return 77;
    }
    g.bits = o.bits;
    GpuBench bench(g);
    Report rep;
    rep.info = bench.device_info();
    rep.info.quick = quick;
    {
      std::ostringstream cl;
      for (int i = 0; i < argc; ++i) cl << (i ? " " : "") << argv[i];
      rep.info.command_line = cl.str();
      const std::time_t now = std::time(nullptr);
      char b[32];
      std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
      rep.info.started_utc = b;
      rep.info.git_commit = commit;
      if (FILE* p = commit.empty() ? popen("git -C " KBIT_DATA_DIR "/.. rev-parse HEAD 2>/dev/null", "r") : nullptr) {
        char h[64] = {0};
        if (std::fgets(h, sizeof h, p)) rep.info.git_commit = std::string(h).substr(0, 40);
        pclose(p);
      }
    }
    rep.info.read_gbps = bench.measure_read_gbps();
    std::printf("%s, L2 %.1f MB, measured read bandwidth %.0f GB/s%s\n", rep.info.device.c_str(),
                rep.info.l2_bytes / 1e6, rep.info.read_gbps, g.hot ? ", HOT weights" : "");
    rep.info.clocks_start = live_clocks();
    rep.info.planned = int(plan.size());
    // Ctrl-C / SIGTERM (e.g. timeout): finish the current row, then report the rows so far as partial.
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    const bool tty = isatty(STDOUT_FILENO);
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < plan.size(); ++i) {
      if (g_stop) {
        rep.info.interrupted = true;
        std::fprintf(stderr, "\nkbit-bench: interrupted after %zu of %zu configurations; writing a partial report\n", i,
                     plan.size());
        break;
      }
      const PlannedCase& c = plan[i];
      const std::string label = c.shape->label() + " M=" + std::to_string(c.M) + " " + c.kernel +
                                (c.bits ? " k=" + std::to_string(c.bits) + " " + c.dtype : "");
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (tty)
        std::printf("\r%s\x1b[K", progress_line(int64_t(i), int64_t(plan.size()), el, label).c_str());
      else
        std::printf("[%zu/%zu] %s\n", i + 1, plan.size(), label.c_str());
      std::fflush(stdout);
      const auto r0 = std::chrono::steady_clock::now();
      Row r = bench.run(c);
      r.wall_ms = 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - r0).count();
      fill_rates(r, rep.info.read_gbps);
      rep.rows.push_back(std::move(r));
    }
    if (tty) std::printf("\r\x1b[K");
    rep.info.clocks_end = live_clocks();
    fill_ratios(rep.rows);
    rep.totals = make_totals(rep.rows);
    write_outputs(rep, md, csv, json, svg_dir);
    int fails = 0;
    for (const Row& r : rep.rows) fails += r.verify == "FAIL" || r.verify == "error";
    if (fails) std::fprintf(stderr, "kbit-bench: %d row(s) failed verification or errored\n", fails);
    if (rep.info.interrupted) return 130;
    return fails ? 2 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbit-bench: %s\n", e.what());
    return 3;
  }
}
