// kbit-make-testdata: writes a deterministic, structurally real tiny Hugging Face checkpoint
// (exact tensor names, config.json fields, tokenizer/generation-config stubs) of one model family,
// for tests, the README's default input and the quantizer's memory benchmark (--scale).
// docs/kbit-make-testdata.md. Exit codes: 0 written, 2 usage or I/O error (nothing left behind).
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "kbit/error.h"
#include "kbit/testdata.h"

using namespace kbit;

int main(int argc, char** argv) {
  CLI::App app{"kbit-make-testdata: write a synthetic Hugging Face checkpoint"};
  std::map<std::string, testdata::Family> families;
  std::string family_list;
  for (testdata::Family f : testdata::all_families()) {
    families[testdata::family_name(f)] = f;
    family_list += std::string(family_list.empty() ? "" : ", ") + testdata::family_name(f);
  }
  testdata::Options opt;
  std::string out;
  bool force = false, list = false;
  app.add_option("--model", opt.family, "model family: " + family_list)
      ->transform(CLI::CheckedTransformer(families, CLI::ignore_case))
      ->default_str("qwen3-moe");
  app.add_option("-o,--out", out, "output directory (must not exist unless --force)");
  app.add_option("--dtype", opt.dtype, "weight dtype: BF16, F16, F32")
      ->check(CLI::IsMember({"BF16", "F16", "F32"}))
      ->capture_default_str();
  app.add_option("--sharded", opt.shards, "number of shards (> 1 writes model-0000i-of-0000N + index)")
      ->check(CLI::Range(1, 99999))
      ->capture_default_str();
  app.add_option("--scale", opt.scale, "multiply hidden/intermediate/heads/vocab (size grows ~scale^2)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  app.add_option("--layers", opt.layers, "decoder layers (0: family default)")->check(CLI::NonNegativeNumber);
  app.add_option("--experts", opt.experts, "experts per MoE layer (0: family default)")->check(CLI::NonNegativeNumber);
  app.add_option("--seed", opt.seed, "value seed")->capture_default_str();
  app.add_option("--threads", opt.threads, "generation threads (0: all)")->capture_default_str();
  app.add_flag("--force", force, "replace an existing output directory");
  app.add_flag("--list", list, "print the tensors (name dtype shape) and config.json, write nothing");
  CLI11_PARSE(app, argc, argv);

  try {
    if (list) {
      const testdata::ModelSpec spec = testdata::model_spec(opt);
      for (const auto& t : spec.tensors) {
        std::printf("%s %s [", t.name.c_str(), t.dtype.c_str());
        for (size_t i = 0; i < t.shape.size(); ++i) std::printf("%s%lld", i ? ", " : "", (long long)t.shape[i]);
        std::printf("]\n");
      }
      std::printf("%s", spec.config_json.c_str());
      return 0;
    }
    if (out.empty()) {
      std::fprintf(stderr, "kbit-make-testdata: give --out DIR (or --list)\n");
      return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const testdata::Summary s = testdata::write_checkpoint(out, opt, force);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: %s, %d tensors, %.2f MiB in %d file%s (%.1f s)\n", out.c_str(), testdata::family_name(opt.family),
                s.tensors, double(s.tensor_bytes) / (1 << 20), s.files, s.files == 1 ? "" : "s", secs);
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "kbit-make-testdata: %s\n", e.what());
    return 2;
  }
}
