// kbit-bench's writers (CPU only): terminal table, markdown, CSV, SVG line charts written by hand
// (no plotting runtime), the compare-mode table and the progress display.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench_core.h"

namespace kbit::bench {

std::string format_table(const Report& rep);     // terminal
std::string format_markdown(const Report& rep);
std::string format_csv(const Report& rep);        // one header line, one line per row (TOTALs too)
std::string csv_escape(const std::string& s);
std::string format_compare(const CompareResult& c, bool only_flagged);

// A line chart: x on a log2 axis when log2_x, every series a polyline with markers and a legend.
struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y); y <= 0 points are skipped
};
struct Chart {
  std::string title, x_label, y_label;
  bool log2_x = true;
  double y_ref = 0;  // a dashed horizontal reference line (e.g. ratio 1); 0: none
  std::vector<Series> series;
};
std::string xml_escape(const std::string& s);
std::string render_svg(const Chart& c);
// Charts of a report: per shape (model.shape, bits, dtype) best ratio to cuBLAS fp16 vs M per
// kernel; per model, % of measured bandwidth vs M of the best passing kernel per shape.
// Returns (file name, svg) pairs; file names are [a-z0-9._-] only.
std::vector<std::pair<std::string, std::string>> report_charts(const Report& rep);
std::string safe_file_name(const std::string& s);

// One progress line: "[#####.....] 12/100  12%  ETA 0:42  label" (width = bar characters).
std::string progress_line(int64_t done, int64_t total, double elapsed_s, const std::string& label, int width = 30);

}  // namespace kbit::bench
