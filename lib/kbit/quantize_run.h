// kbit-quantize's engine: opens a Hugging Face checkpoint, plans (quantize_plan.h), then streams
// tensor by tensor (mmap read, quantize, write, drop the pages) into shards of FORMAT §7.
//
// Crash safety: everything is written into OUT.kbit-partial/ (a sibling of OUT) and that
// directory is renamed to OUT only after every shard, the index, the copied files and finally
// config.json are written and fsynced. An interrupted run therefore never leaves anything under
// OUT. The partial directory keeps job.json (parameters, source identity, finished shards with
// their size and content hash); --resume re-checks the finished shards and redoes the rest.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kbit/error.h"
#include "kbit/quantize.h"
#include "kbit/quantize_plan.h"
#include "kbit/safetensors.h"

namespace kbit {

// Exit-code classes of the tools (docs/kbit-quantize.md). A plain kbit::Error is an input or
// format error (exit 3).
class UsageError : public Error {  // exit 2: fix the command line
 public:
  using Error::Error;
};
class IoError : public Error {  // exit 4: writing, disk, memory, interruption
 public:
  using Error::Error;
};

// The source: the checkpoint plus its config.json (empty object when there is none).
struct Source {
  st::Checkpoint checkpoint;
  nlohmann::ordered_json config = nlohmann::ordered_json::object();
  bool has_config = false;
  bool is_dir = false;  // a directory (other files are copied) rather than one .safetensors file
  std::filesystem::path root;
  std::vector<SourceTensor> tensors() const;
};
Source open_source(const std::filesystem::path& path);

// A source tensor as fp32-convertible data. F8_E4M3 weights are dequantized with their block
// scale into `f32` (FORMAT sources are BF16/F16/F32 otherwise and are read in place).
struct LoadedTensor {
  TensorView view;
  std::vector<float> f32;
};
LoadedTensor load_for_quantize(const Source& src, const TensorPlan& t, const ModelInfo& model);
void release_source(const Source& src, const TensorPlan& t);  // drop its pages from the RSS

// Dequantization error of q against its source, row by row (no full-size copy).
struct ErrorStats {
  double sum_sq_ref = 0, sum_sq_err = 0, max_abs_err = 0;
  int64_t worst_e = 0, worst_n = 0, worst_k = 0;
  bool nonfinite = false;
  double nmse() const;     // sum (w - w')^2 / sum w^2 (0 for an all-zero exact tensor)
  double sqnr_db() const;  // -10 log10(nmse); +inf when exact
};
ErrorStats dequant_error(const TiledView& q, const TensorView& source, int threads);

struct RunOptions {
  PlanOptions plan;
  std::filesystem::path source, output;
  int threads = 0;
  bool overwrite = false, resume = false, dry_run = false;
  // Test hooks: fail after this many output tensors were written (-1: never), by throwing an
  // IoError or, with fail_hard, by _exit(70) without any cleanup (a crash or kill -9).
  int64_t fail_after = -1;
  bool fail_hard = false;
};

struct TensorResult {
  std::string name;
  int bits = 0;
  int scale_exp = 0;
  std::vector<int64_t> shape;
  std::string dtype;
  int64_t numel = 0;
  ErrorStats err;
};

struct ProgressEvent {
  size_t done = 0, total = 0;         // source tensors
  uint64_t bytes_done = 0, bytes_total = 0;  // source bytes
  std::string name;
  const TensorResult* quantized = nullptr;  // set when `name` was just quantized
  bool resumed_shard = false;               // a finished shard was kept (whole shard counted)
};
using ProgressFn = std::function<void(const ProgressEvent&)>;

struct RunResult {
  Plan plan;
  std::vector<TensorResult> quantized;  // in processing order
  std::vector<std::string> shards_resumed;
  std::vector<std::string> copied_files, skipped_files;  // other files of the source directory
  std::vector<std::string> warnings;                      // plan warnings + checkpoint warnings
  std::filesystem::path output;
  bool already_complete = false;  // --resume on a finished output: nothing was done
  double wall_s = 0;
};

// The partial directory of an output (OUT.kbit-partial beside OUT).
std::filesystem::path partial_dir(const std::filesystem::path& output);

RunResult run_quantize(const RunOptions& opt, const ProgressFn& progress = {});

// Machine-readable summary (the --json document of kbit-quantize).
nlohmann::ordered_json summary_json(const RunResult& r, const RunOptions& opt);

}  // namespace kbit
