// kbit-bench's CPU side (docs/kbit-bench.md): result rows, byte/FLOP accounting, replay
// statistics, TOTAL rows, the sweep plan and its time estimate, compare mode. No CUDA here, so
// kbit_tests covers it on any machine; the GPU runner (runner.cpp) only fills in timings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "catalogue.h"

namespace kbit::bench {

// ---- statistics over replays (per-launch µs of each replay) ----
struct Stats {
  int n = 0;
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0;
  // Half the min..max range relative to the median (0 when n < 2 or median <= 0).
  double rel_spread() const { return (n < 2 || median <= 0) ? 0.0 : 0.5 * (max - min) / median; }
};
// Linear-interpolated quantiles (q1 = 25%, q3 = 75%) of the samples; empty input gives n = 0.
Stats stats_of(std::vector<double> samples);

// ---- roofline accounting (PERF.md): bytes = weights + activations + output ----
// kbit weights cost k/8 + 1/32 bytes per weight (packed indices + one E4M4 absmax per 32).
double kbit_bytes_per_weight(int bits);
struct Traffic {
  double weight_bytes = 0, act_bytes = 0, out_bytes = 0;
  double bytes() const { return weight_bytes + act_bytes + out_bytes; }
};
// experts_read: experts whose weights the launch reads (1 for dense; active experts for MoE);
// rows: activation rows (M dense, routed rows MoE); act_elem_bytes 2 (fp16/bf16).
// bits = 0 means a dense fp16/bf16 weight (2 bytes per weight, the cuBLAS baselines).
Traffic traffic(int64_t N, int64_t K, int bits, int64_t experts_read, int64_t rows, int act_elem_bytes = 2);
double flops(int64_t N, int64_t K, int64_t rows);  // 2 * rows * N * K

// ---- result rows ----
// kind: "kbit" (a kbit kernel), "baseline" (cuBLAS fp16/bf16, MoE per-expert loop / grouped).
struct Row {
  std::string model, shape;  // shape name within the model ("mlp.experts.gate_up")
  bool moe = false;
  int64_t N = 0, K = 0, E = 1;
  int top_k = 0;
  int64_t M = 0;             // tokens
  int64_t rows = 0;          // activation rows (M dense; tokens * top_k routed rows MoE)
  int64_t active_experts = 1;
  int bits = 0;              // 0 for baselines
  std::string dtype;         // "f16" / "bf16"
  std::string kind;          // "kbit" / "baseline"
  std::string kernel;        // "mma", "automatic", "cublas_f16", "cublas_loop_f16", ...
  std::string dispatch;      // automatic: the kernel dispatch chose; else empty
  bool hot = false;          // one weight copy (L2-resident when it fits); else cold rotation
  std::string verify;        // "PASS", "FAIL", "n/a" (kernel declined the case), "ref" (baseline), "error"
  std::string note;          // why a row has no speed, rotation info, ...
  int copies = 0;            // weight copies rotated
  int launches = 0;          // launches captured per graph
  Stats us;                  // per-launch µs over replays (n = 0: not timed)
  double wall_ms = 0;        // host wall time of the whole row (verification, capture, replays)
  double bytes = 0, flop = 0;
  // derived (fill_derived)
  double gbps = 0, pct_bw = 0, tflops = 0;
  double ratio_f16 = 0, ratio_bf16 = 0, ratio_moe = 0;  // baseline µs / this µs (0: unavailable)

  bool timed() const { return us.n > 0 && us.median > 0; }
  // Identity for compare mode and for baseline lookup.
  std::string key() const;
};

// GB/s, % of measured read bandwidth (GB/s), TFLOP/s.
void fill_rates(Row& r, double measured_gbps);
// Ratios of every kbit row to the baselines of the same (model, shape, M, hot): cublas_f16,
// cublas_bf16 and, for MoE, the fastest fp16 MoE alternative (cublas_loop_f16 / cublas_grouped_f16).
void fill_ratios(std::vector<Row>& rows);

// ---- TOTAL rows: one block of a model at one M (bits, dtype, hot) ----
struct Total {
  std::string model;
  int64_t M = 0;
  int bits = 0;
  std::string dtype;
  bool hot = false;
  int shapes = 0;            // block shapes summed
  int missing = 0;           // block shapes with no passing timed kbit row or no fp16 baseline
  double kbit_us = 0;        // sum of the fastest passing kbit kernel per shape (launch-mode rows excluded)
  double fp16_us = 0;        // sum of the fp16 baseline per shape (MoE: fastest fp16 alternative)
  double ratio = 0;          // fp16_us / kbit_us (0 when anything is missing)
  std::vector<std::string> best;  // "shape=kernel" per shape, in row order
  // false: plain launches only (the TOTAL); true: launch-mode rows (automatic_pdl) may be the
  // fastest row of a shape ("TOTAL +pdl", made only where such rows exist)
  bool pdl = false;
};
// The fp16 reference of one shape: cublas_f16 (dense) or the fastest MoE fp16 alternative.
bool is_fp16_reference(const Row& r);
// The kernel a bench kernel name runs: the name without its launch-mode suffix `_pdl`
// (LinearArgs::pdl / MoeArgs::pdl, programmatic dependent launch -- a promise from the caller that
// cuBLAS rows do not make): "tcv_pdl" -> "tcv", "automatic" -> "automatic".
std::string kernel_of(const std::string& name);
// A kbit row timed in another launch mode than the plain API call: `automatic_pdl` and the opt-in
// `gemv_pdl`, `tcv_pdl`, `tcw_pdl`. Such rows are reported with their ratios but stay out of the
// plain totals (they get their own "+pdl" totals) and out of the plain rows' dispatch audit.
bool is_launch_mode_row(const Row& r);
std::vector<Total> make_totals(const std::vector<Row>& rows);

// ---- dispatch audit: did `automatic` pick the fastest kernel? ----
// For each timed PASS `automatic` row, the fastest timed PASS kbit row of the same (model, shape,
// M, bits, dtype, hot) among the other plain kernels (v0 excluded: it is the slow oracle); for each
// `automatic_pdl` row, the fastest of the per-kernel PDL rows (gemv_pdl, tcv_pdl, tcw_pdl; MoE: grouped_gemv_pdl,
// grouped_tcv_pdl, grouped_tcw_pdl) when any ran. A miss when
// automatic's median exceeds that row's by more than `margin` (relative) and its fastest replay
// is slower than the other row's slowest (outside both spreads). Indices into `rows`.
struct DispatchMiss {
  size_t automatic = 0, best = 0;
  double slowdown = 0;  // automatic median / best median
};
struct DispatchAudit {
  int automatic_rows = 0;  // timed PASS automatic rows that had a competitor
  std::vector<DispatchMiss> misses;
};
DispatchAudit dispatch_audit(const std::vector<Row>& rows, double margin = 0.05);

// ---- sweep plan ----
struct SweepOptions {
  std::vector<int64_t> Ms = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
  std::vector<int> bits = {4};
  std::vector<std::string> dtypes = {"f16", "bf16"};
  std::vector<std::string> models;     // empty: all models of the catalogue
  std::vector<std::string> kernels;    // empty: all; names as in kernel_names()
  bool include_non_block = false;      // also shapes with block = false
  int64_t v0_max_m = 4;                // the v0 kernels are readable oracles, very slow at large M
  int64_t gemv_max_m = 4;              // gpu.h: gemv takes M = 1..4
  int64_t tcv_max_m = 16;              // gpu.h: tcv takes M = 1..16
};
// --quick: two models, 3 M values, f16 only, k = 4, no v0 (docs/kbit-bench.md).
SweepOptions quick_options();

const std::vector<std::string>& dense_kernel_names();  // v0 gemv tcv mma dequant_cublas automatic
const std::vector<std::string>& moe_kernel_names();    // v0 grouped_gemv grouped_tcv grouped_mma grouped_tcw automatic automatic_pdl
// Opt-in launch-mode rows (only when named in SweepOptions::kernels): the kernel with PDL.
const std::vector<std::string>& dense_opt_in_kernel_names();  // gemv_pdl tcv_pdl tcw_pdl
const std::vector<std::string>& moe_opt_in_kernel_names();    // grouped_gemv_pdl grouped_tcv_pdl grouped_tcw_pdl
const std::vector<std::string>& dense_baseline_names();  // cublas_f16 cublas_bf16
const std::vector<std::string>& moe_baseline_names();    // + cublas_loop_f16 cublas_grouped_f16

struct PlannedCase {
  const verify::GemmShape* shape = nullptr;
  int64_t M = 0;
  int bits = 0;             // 0: baseline
  std::string dtype;        // baselines: the dtype of the baseline
  std::string kernel;
};
// All configurations in run order: per shape, per M: baselines, then per bits, dtype, kernel.
std::vector<PlannedCase> plan_sweep(const verify::Catalogue& cat, const SweepOptions& o);

// Rough wall time (s) of a plan on an H100 (docs/kbit-bench.md, "Time estimate"): per case a
// fixed cost (verification, graph capture/instantiate, host compare) plus replay time from a
// bandwidth model, plus weight generation per (shape, bits).
struct Estimate {
  int cases = 0;
  double seconds = 0;
};
Estimate estimate_plan(const std::vector<PlannedCase>& plan, int replays, double gbps = 3000.0);

// ---- compare mode ----
struct CompareOptions {
  double threshold = 0.02;  // a change must also exceed this relative amount to count
};
struct RowChange {
  std::string key;
  double a_us = 0, b_us = 0;
  double change = 0;        // (b - a) / a
  bool regression = false;
  bool improvement = false;
  std::string why;          // "slower beyond spread", "verify PASS -> FAIL", "missing in B", ...
};
struct CompareResult {
  std::vector<RowChange> changes;
  int regressions = 0, improvements = 0, only_a = 0, only_b = 0;
};
// Regression: B's fastest replay is slower than A's slowest (the intervals do not overlap) AND the
// median rose by more than threshold; or a row that passed in A fails or lost its time in B.
CompareResult compare_rows(const std::vector<Row>& a, const std::vector<Row>& b, const CompareOptions& o);

// ---- run metadata + JSON ----
struct RunInfo {
  std::string tool_version = "kbit-bench/1";
  std::string git_commit, started_utc, device, driver, cuda_runtime;
  int sm_clock_mhz = 0, mem_clock_mhz = 0;  // the device's nominal (maximum) clocks
  // Live clocks as nvidia-smi reads them before the first and after the last row ("" without it).
  std::string clocks_start, clocks_end;
  int64_t l2_bytes = 0;
  double read_gbps = 0;      // measured at start
  bool hot = false, quick = false;
  int replays = 0;
  std::string command_line;
  int planned = 0;           // configurations in the plan
  bool interrupted = false;  // SIGINT/SIGTERM: only the rows before the signal (a partial report)
};
struct Report {
  RunInfo info;
  std::vector<Row> rows;
  std::vector<Total> totals;
};

nlohmann::json to_json(const Row& r);
Row row_from_json(const nlohmann::json& j);
nlohmann::json to_json(const Report& r);
Report report_from_json(const nlohmann::json& j);  // throws kbit::Error on a wrong schema

}  // namespace kbit::bench
