#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace kbit::bench {

namespace {
std::string fmt(const char* f, double x) {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}
std::string num(double x, const char* f = "%.2f") { return x > 0 ? fmt(f, x) : "-"; }
std::string ratio(double x) { return x > 0 ? fmt("%.2fx", x) : "-"; }
std::string kernel_col(const Row& r) { return r.dispatch.empty() ? r.kernel : r.kernel + "->" + r.dispatch; }
std::string bits_col(const Row& r) { return r.bits ? std::to_string(r.bits) : "-"; }
std::string spread_col(const Row& r) {
  return r.timed() ? fmt("%.2f", r.us.min) + ".." + fmt("%.2f", r.us.max) : "-";
}
}  // namespace

std::string format_table(const Report& rep) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-44s %5s %2s %-4s %-30s %-5s %9s %17s %8s %6s %7s %8s %8s %8s\n", "shape", "M",
                "k", "dt", "kernel", "ver", "us", "min..max", "GB/s", "%bw", "TFLOP/s", "x f16", "x bf16", "x moe");
  out += line;
  for (const Row& r : rep.rows) {
    std::snprintf(line, sizeof line, "%-44s %5lld %2s %-4s %-30s %-5s %9s %17s %8s %6s %7s %8s %8s %8s%s%s\n",
                  (r.model + "." + r.shape).c_str(), (long long)r.M, bits_col(r).c_str(), r.dtype.c_str(),
                  kernel_col(r).c_str(), r.verify.c_str(), num(r.us.median).c_str(), spread_col(r).c_str(),
                  num(r.gbps, "%.0f").c_str(), num(r.pct_bw, "%.1f").c_str(), num(r.tflops).c_str(),
                  ratio(r.ratio_f16).c_str(), ratio(r.ratio_bf16).c_str(), ratio(r.ratio_moe).c_str(),
                  r.hot ? "  HOT" : "", r.note.empty() || r.timed() ? "" : ("  (" + r.note + ")").c_str());
    out += line;
  }
  for (const Total& t : rep.totals) {
    std::snprintf(line, sizeof line, "TOTAL%-5s %-33s %5lld %2d %-4s best kbit %9.2f us  fp16 %9.2f us  %s%s%s\n",
                  t.pdl ? " +pdl" : "", t.model.c_str(), (long long)t.M, t.bits, t.dtype.c_str(), t.kbit_us, t.fp16_us,
                  ratio(t.ratio).c_str(), t.missing ? (" (" + std::to_string(t.missing) + " shapes missing)").c_str() : "",
                  t.hot ? "  HOT" : "");
    out += line;
  }
  const DispatchAudit audit = dispatch_audit(rep.rows);
  if (audit.automatic_rows > 0)
    out += "dispatch audit: " + std::to_string(audit.misses.size()) + " of " + std::to_string(audit.automatic_rows) +
           " automatic rows > 5% slower than the fastest other verified kernel (listed in the markdown report)\n";
  return out;
}

std::string format_markdown(const Report& rep) {
  const RunInfo& i = rep.info;
  std::string out = "# kbit-bench results\n\n";
  if (i.interrupted)
    out += "**PARTIAL: interrupted after " + std::to_string(rep.rows.size()) + " of " + std::to_string(i.planned) +
           " configurations; TOTAL rows cover only the shapes reached.**\n\n";
  out += "- device: " + i.device + " (driver " + i.driver + ", CUDA runtime " + i.cuda_runtime + ")\n";
  out += "- nominal clocks: SM " + std::to_string(i.sm_clock_mhz) + " MHz, memory " + std::to_string(i.mem_clock_mhz) +
         " MHz; L2 " + fmt("%.1f", double(i.l2_bytes) / 1e6) + " MB\n";
  out += "- clocks as read (nvidia-smi) before the first row: " + (i.clocks_start.empty() ? "n/a" : i.clocks_start) +
         "; after the last: " + (i.clocks_end.empty() ? "n/a" : i.clocks_end) + "\n";
  out += "- measured read bandwidth: " + fmt("%.0f", i.read_gbps) + " GB/s\n";
  out += "- git commit: " + i.git_commit + "; started " + i.started_utc + "\n";
  out += "- weights: " + std::string(i.hot ? "**HOT** (one copy)" : "cold (copies rotated past 4x L2)") + "; " +
         std::to_string(i.replays) + " graph replays per row, median and min..max per launch\n";
  out += "- command: `" + i.command_line + "`\n\n";
  out += "## TOTAL (one block: best passing kbit kernel per shape vs cuBLAS fp16 / best fp16 MoE alternative)\n\n";
  for (const Total& t : rep.totals)
    if (t.pdl) {
      out += "Totals marked +pdl also let `automatic_pdl` rows (programmatic dependent launch, a promise "
             "about the preceding work that cuBLAS's rows do not make) be a shape's fastest row.\n\n";
      break;
    }
  out += "| model | M | k | dtype | kbit us | fp16 us | ratio | best kernels |\n|---|---|---|---|---|---|---|---|\n";
  for (const Total& t : rep.totals) {
    std::string best;
    for (const auto& b : t.best) best += (best.empty() ? "" : ", ") + b;
    out += "| " + t.model + (t.hot ? " (hot)" : "") + (t.pdl ? " +pdl" : "") + " | " + std::to_string(t.M) + " | " + std::to_string(t.bits) +
           " | " + t.dtype + " | " + fmt("%.2f", t.kbit_us) + " | " + fmt("%.2f", t.fp16_us) + " | " +
           ratio(t.ratio) + (t.missing ? " (" + std::to_string(t.missing) + " missing)" : "") + " | " + best + " |\n";
  }
  const DispatchAudit audit = dispatch_audit(rep.rows);
  out += "\n## Dispatch audit\n\n" + std::to_string(audit.misses.size()) + " of " + std::to_string(audit.automatic_rows) +
         " `automatic` rows (`automatic_pdl` ones against the per-kernel `*_pdl` rows) were more than 5% slower than "
         "the fastest other verified kernel of the same row and launch mode (outside both spreads)" + (audit.misses.empty() ? ".\n" : ":\n\n| model | shape | M | k | dtype | automatic | us | fastest | us | slower |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (const DispatchMiss& m : audit.misses) {
    const Row& a = rep.rows[m.automatic];
    const Row& b = rep.rows[m.best];
    out += "| " + a.model + " | " + a.shape + " | " + std::to_string(a.M) + " | " + bits_col(a) + " | " + a.dtype + " | " +
           kernel_col(a) + (a.hot ? " (hot)" : "") + " | " + num(a.us.median) + " | " + b.kernel + " | " +
           num(b.us.median) + " | " + fmt("%.2fx", m.slowdown) + " |\n";
  }
  std::string model;
  for (const Row& r : rep.rows) {
    if (r.model != model) {
      model = r.model;
      out += "\n## " + model + "\n\n";
      out += "| shape | M | k | dtype | kernel | verify | us | min..max | GB/s | % bw | TFLOP/s | x cuBLAS f16 | x cuBLAS "
             "bf16 | x MoE fp16 | note |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    }
    out += "| " + r.shape + " | " + std::to_string(r.M) + " | " + bits_col(r) + " | " + r.dtype + " | " +
           kernel_col(r) + (r.hot ? " (hot)" : "") + " | " + r.verify + " | " + num(r.us.median) + " | " +
           spread_col(r) + " | " + num(r.gbps, "%.0f") + " | " + num(r.pct_bw, "%.1f") + " | " + num(r.tflops) +
           " | " + ratio(r.ratio_f16) + " | " + ratio(r.ratio_bf16) + " | " + ratio(r.ratio_moe) + " | " + r.note +
           " |\n";
  }
  return out;
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

std::string format_csv(const Report& rep) {
  std::string out =
      "row_type,model,shape,moe,N,K,E,top_k,M,rows,active_experts,bits,dtype,kind,kernel,dispatch,hot,verify,copies,"
      "launches,replays,us_median,us_min,us_max,us_q1,us_q3,bytes,flop,gbps,pct_bw,tflops,ratio_f16,ratio_bf16,"
      "ratio_moe,note\n";
  auto g = [](double x) { return fmt("%.6g", x); };
  for (const Row& r : rep.rows) {
    out += "row," + csv_escape(r.model) + "," + csv_escape(r.shape) + "," + (r.moe ? "1" : "0") + "," +
           std::to_string(r.N) + "," + std::to_string(r.K) + "," + std::to_string(r.E) + "," + std::to_string(r.top_k) +
           "," + std::to_string(r.M) + "," + std::to_string(r.rows) + "," + std::to_string(r.active_experts) + "," +
           std::to_string(r.bits) + "," + r.dtype + "," + r.kind + "," + csv_escape(r.kernel) + "," +
           csv_escape(r.dispatch) + "," + (r.hot ? "1" : "0") + "," + r.verify + "," + std::to_string(r.copies) + "," +
           std::to_string(r.launches) + "," + std::to_string(r.us.n) + "," + g(r.us.median) + "," + g(r.us.min) + "," +
           g(r.us.max) + "," + g(r.us.q1) + "," + g(r.us.q3) + "," + g(r.bytes) + "," + g(r.flop) + "," + g(r.gbps) +
           "," + g(r.pct_bw) + "," + g(r.tflops) + "," + g(r.ratio_f16) + "," + g(r.ratio_bf16) + "," +
           g(r.ratio_moe) + "," + csv_escape(r.note) + "\n";
  }
  for (const Total& t : rep.totals) {
    std::string best;
    for (const auto& b : t.best) best += (best.empty() ? "" : " ") + b;
    // TOTAL lines: us_median = summed kbit µs; ratio_f16 = fp16 sum / kbit sum; note = best kernels.
    out += "total," + csv_escape(t.model) + ",TOTAL,,,,,," + std::to_string(t.M) + ",,," + std::to_string(t.bits) +
           "," + t.dtype + ",total," + (t.pdl ? "best+pdl" : "best") + ",," + (t.hot ? "1" : "0") + "," + (t.missing ? "incomplete" : "") + ",,,," +
           g(t.kbit_us) + ",,,,,,,,,," + g(t.ratio) + ",,," + csv_escape("fp16_us=" + g(t.fp16_us) + " " + best) +
           "\n";
  }
  return out;
}

std::string format_compare(const CompareResult& c, bool only_flagged) {
  std::string out;
  char line[512];
  for (const RowChange& x : c.changes) {
    if (only_flagged && !x.regression && !x.improvement) continue;
    std::snprintf(line, sizeof line, "%-11s %-90s %10s %10s %8s  %s\n",
                  x.regression ? "REGRESSION" : x.improvement ? "improved" : "", x.key.c_str(), num(x.a_us).c_str(),
                  num(x.b_us).c_str(), x.a_us > 0 && x.b_us > 0 ? fmt("%+.1f%%", 100 * x.change).c_str() : "-",
                  x.why.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "%d regression(s), %d improvement(s), %d row(s) only in A, %d only in B\n",
                c.regressions, c.improvements, c.only_a, c.only_b);
  return out + line;
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string render_svg(const Chart& c) {
  const double W = 760, H = 440, L = 70, R = 220, T = 40, B = 50;
  const double pw = W - L - R, ph = H - T - B;
  double x0 = 1e300, x1 = -1e300, y1 = c.y_ref > 0 ? c.y_ref : 0;
  auto tx = [&](double x) { return c.log2_x ? std::log2(x) : x; };
  for (const Series& s : c.series)
    for (auto [x, y] : s.points) {
      if (y <= 0 || (c.log2_x && x <= 0)) continue;
      x0 = std::min(x0, tx(x));
      x1 = std::max(x1, tx(x));
      y1 = std::max(y1, y);
    }
  if (x0 > x1) x0 = 0, x1 = 1;
  if (x1 - x0 < 1e-9) x1 = x0 + 1;
  if (y1 <= 0) y1 = 1;
  y1 *= 1.1;
  auto px = [&](double x) { return L + (tx(x) - x0) / (x1 - x0) * pw; };
  auto py = [&](double y) { return T + ph - y / y1 * ph; };
  static const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                 "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fmt("%.0f", W) + "\" height=\"" + fmt("%.0f", H) +
       "\" viewBox=\"0 0 " + fmt("%.0f", W) + " " + fmt("%.0f", H) + "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  o += "<rect x=\"0\" y=\"0\" width=\"" + fmt("%.0f", W) + "\" height=\"" + fmt("%.0f", H) + "\" fill=\"white\"/>\n";
  o += "<text x=\"" + fmt("%.0f", W / 2) + "\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">" + xml_escape(c.title) +
       "</text>\n";
  o += "<rect x=\"" + fmt("%.1f", L) + "\" y=\"" + fmt("%.1f", T) + "\" width=\"" + fmt("%.1f", pw) + "\" height=\"" +
       fmt("%.1f", ph) + "\" fill=\"none\" stroke=\"black\"/>\n";
  // y ticks: 5 intervals.
  for (int i = 0; i <= 5; ++i) {
    const double y = y1 * i / 5;
    o += "<line x1=\"" + fmt("%.1f", L) + "\" y1=\"" + fmt("%.1f", py(y)) + "\" x2=\"" + fmt("%.1f", L + pw) +
         "\" y2=\"" + fmt("%.1f", py(y)) + "\" stroke=\"#ddd\"/>\n";
    o += "<text x=\"" + fmt("%.1f", L - 6) + "\" y=\"" + fmt("%.1f", py(y) + 4) + "\" text-anchor=\"end\">" +
         fmt(y1 >= 10 ? "%.0f" : "%.2f", y) + "</text>\n";
  }
  // x ticks: every integer of the (log2) axis.
  for (double t = std::ceil(x0); t <= x1 + 1e-9; t += 1) {
    const double x = c.log2_x ? std::exp2(t) : t;
    o += "<text x=\"" + fmt("%.1f", px(x)) + "\" y=\"" + fmt("%.1f", T + ph + 16) + "\" text-anchor=\"middle\">" +
         fmt("%.0f", x) + "</text>\n";
  }
  o += "<text x=\"" + fmt("%.1f", L + pw / 2) + "\" y=\"" + fmt("%.1f", H - 12) + "\" text-anchor=\"middle\">" +
       xml_escape(c.x_label) + "</text>\n";
  o += "<text x=\"16\" y=\"" + fmt("%.1f", T + ph / 2) + "\" text-anchor=\"middle\" transform=\"rotate(-90 16 " +
       fmt("%.1f", T + ph / 2) + ")\">" + xml_escape(c.y_label) + "</text>\n";
  if (c.y_ref > 0)
    o += "<line x1=\"" + fmt("%.1f", L) + "\" y1=\"" + fmt("%.1f", py(c.y_ref)) + "\" x2=\"" + fmt("%.1f", L + pw) +
         "\" y2=\"" + fmt("%.1f", py(c.y_ref)) + "\" stroke=\"black\" stroke-dasharray=\"4 3\"/>\n";
  for (size_t s = 0; s < c.series.size(); ++s) {
    const char* col = colors[s % 10];
    std::string pts;
    for (auto [x, y] : c.series[s].points) {
      if (y <= 0 || (c.log2_x && x <= 0)) continue;
      pts += (pts.empty() ? "" : " ") + fmt("%.1f", px(x)) + "," + fmt("%.1f", py(y));
      o += "<circle cx=\"" + fmt("%.1f", px(x)) + "\" cy=\"" + fmt("%.1f", py(y)) + "\" r=\"2.5\" fill=\"" + col +
           "\"/>\n";
    }
    if (!pts.empty())
      o += "<polyline points=\"" + pts + "\" fill=\"none\" stroke=\"" + col + "\" stroke-width=\"1.5\"/>\n";
    const double ly = T + 10 + 16 * double(s);
    o += "<line x1=\"" + fmt("%.1f", L + pw + 12) + "\" y1=\"" + fmt("%.1f", ly) + "\" x2=\"" + fmt("%.1f", L + pw + 30) +
         "\" y2=\"" + fmt("%.1f", ly) + "\" stroke=\"" + col + "\" stroke-width=\"2\"/>\n";
    o += "<text x=\"" + fmt("%.1f", L + pw + 34) + "\" y=\"" + fmt("%.1f", ly + 4) + "\">" +
         xml_escape(c.series[s].name) + "</text>\n";
  }
  o += "</svg>\n";
  return o;
}

std::string safe_file_name(const std::string& s) {
  std::string o;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    o += ok ? c : (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : '_';
  }
  return o;
}

std::vector<std::pair<std::string, std::string>> report_charts(const Report& rep) {
  std::vector<std::pair<std::string, std::string>> out;
  const char* suffix = rep.info.hot ? " (HOT weights)" : "";
  // Per (model.shape, bits, dtype, hot): ratio to cuBLAS fp16 vs M, one series per kbit kernel.
  std::map<std::string, std::map<std::string, Series>> ratio_charts;
  std::vector<std::string> order;
  std::map<std::string, bool> moe_chart;
  for (const Row& r : rep.rows) {
    // Dense: against cuBLAS fp16; MoE: against the fastest fp16 MoE alternative.
    const double ratio = r.moe ? r.ratio_moe : r.ratio_f16;
    if (r.kind != "kbit" || !r.timed() || r.verify != "PASS" || ratio <= 0) continue;
    const std::string key = r.model + "." + r.shape + ".k" + std::to_string(r.bits) + "." + r.dtype + (r.hot ? ".hot" : "");
    if (!ratio_charts.count(key)) order.push_back(key), moe_chart[key] = r.moe;
    Series& s = ratio_charts[key][r.kernel];
    s.name = r.kernel;
    s.points.emplace_back(double(r.M), ratio);
  }
  for (const std::string& key : order) {
    Chart c;
    c.title = key + (moe_chart[key] ? ": best fp16 MoE alternative time / kbit time" : ": cuBLAS fp16 time / kbit time") +
              suffix;
    c.x_label = "M (tokens)";
    c.y_label = "ratio (higher is faster)";
    c.y_ref = 1.0;
    for (auto& [k, s] : ratio_charts[key]) c.series.push_back(s);
    out.emplace_back("ratio." + safe_file_name(key) + ".svg", render_svg(c));
  }
  // Per (model, bits, dtype, hot): % of measured bandwidth of the best passing kernel per shape.
  std::map<std::string, std::map<std::string, std::map<int64_t, double>>> bw;
  std::vector<std::string> morder;
  for (const Row& r : rep.rows) {
    if (r.kind != "kbit" || !r.timed() || r.verify != "PASS") continue;
    const std::string key = r.model + ".k" + std::to_string(r.bits) + "." + r.dtype + (r.hot ? ".hot" : "");
    if (!bw.count(key)) morder.push_back(key);
    double& v = bw[key][r.shape][r.M];
    v = std::max(v, r.pct_bw);
  }
  for (const std::string& key : morder) {
    Chart c;
    c.title = key + ": % of measured read bandwidth, best kernel" + suffix;
    c.x_label = "M (tokens)";
    c.y_label = "% of measured DRAM read bandwidth";
    for (auto& [shape, pts] : bw[key]) {
      Series s;
      s.name = shape;
      for (auto [m, v] : pts) s.points.emplace_back(double(m), v);
      c.series.push_back(std::move(s));
    }
    out.emplace_back("bandwidth." + safe_file_name(key) + ".svg", render_svg(c));
  }
  return out;
}

std::string progress_line(int64_t done, int64_t total, double elapsed_s, const std::string& label, int width) {
  const double f = total > 0 ? std::clamp(double(done) / double(total), 0.0, 1.0) : 1.0;
  const int fill = int(std::lround(f * width));
  std::string bar = "[" + std::string(size_t(fill), '#') + std::string(size_t(width - fill), '.') + "]";
  std::string eta = "--:--";
  if (done > 0 && total > done) {
    const int64_t s = int64_t(elapsed_s / double(done) * double(total - done) + 0.5);
    char b[32];
    std::snprintf(b, sizeof b, "%lld:%02lld", (long long)(s / 60), (long long)(s % 60));
    eta = b;
  } else if (done >= total) {
    eta = "0:00";
  }
  char b[96];
  std::snprintf(b, sizeof b, " %lld/%lld %3.0f%% ETA %s  ", (long long)done, (long long)total, 100 * f, eta.c_str());
  return bar + b + label;
}

}  // namespace kbit::bench
