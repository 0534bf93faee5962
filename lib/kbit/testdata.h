// Deterministic, structurally real tiny Hugging Face checkpoints for tests and benchmarks: exact
// HF tensor names, shapes in the families' on-disk orientation, and the config.json fields the
// families' loaders read. Values are seeded normals (kbit::Rng), so the same options give
// byte-identical files on any machine. Used by apps/kbit-make-testdata (docs/kbit-make-testdata.md)
// and callable from tests to make a checkpoint in-process.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kbit::testdata {

enum class Family {
  llama,            // LlamaForCausalLM: dense, untied lm_head
  qwen3_moe,        // Qwen3MoeForCausalLM: per-expert 2D tensors mlp.experts.{e}.*, router mlp.gate
  qwen3_moe_fused,  // the same model re-saved by transformers v5: mlp.experts.gate_up_proj [E, 2I, H]
                    // (gate rows, then up rows) and mlp.experts.down_proj [E, H, I]: nn.Linear [E, N, K]
  gpt_oss,          // GptOssForCausalLM (BF16 form): fused experts stored TRANSPOSED [E, K, N]:
                    // gate_up_proj [E, H, 2I] with gate/up interleaved in the last axis, down_proj [E, I, H]
  glm4_moe,         // Glm4MoeForCausalLM: first_k_dense_replace dense layers, routed + shared experts,
                    // e_score_correction_bias, q/k/v biases, one MTP layer (num_nextn_predict_layers)
  qwen3_tied,       // Qwen3ForCausalLM with tie_word_embeddings: no lm_head.weight
};

std::optional<Family> parse_family(std::string_view name);  // "llama", "qwen3-moe", ...
const char* family_name(Family f);
std::vector<Family> all_families();

struct Options {
  Family family = Family::qwen3_moe;
  std::string dtype = "BF16";  // BF16, F16 or F32 for weights (e_score_correction_bias stays F32)
  int scale = 1;               // multiplies hidden, intermediate, heads, vocab (size grows ~scale^2)
  int layers = 0;              // 0: the family's default
  int experts = 0;             // 0: the family's default
  int shards = 1;              // > 1: model-0000i-of-0000N.safetensors + index
  uint64_t seed = 1;
  int threads = 0;             // value generation threads (0: all)
};

struct TensorSpec {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  float mean = 0, stddev = 0.02f;
  bool outliers = false;  // one element in 4096 scaled by 8 (heavier tails, as trained weights have)
};

struct ModelSpec {
  std::string config_json;           // config.json text
  std::vector<TensorSpec> tensors;   // in state-dict order
  uint64_t tensor_bytes() const;
};

ModelSpec model_spec(const Options& opt);

// Fills dst (numel elements of spec.dtype) with the tensor's values for elements
// [first, first + numel): each 65536-element chunk has its own seed, so any split gives the
// same bytes.
void fill_values(const TensorSpec& spec, uint64_t seed, int64_t first, int64_t numel, void* dst);

struct Summary {
  int files = 0;           // .safetensors files
  int tensors = 0;
  uint64_t tensor_bytes = 0;
};

// Writes the checkpoint (config.json, generation_config.json, tokenizer stubs, weights, index)
// into a temporary sibling directory and renames it to `dir` at the end, so `dir` is either the
// whole checkpoint or absent. `dir` must not exist unless `force` (then it is replaced).
Summary write_checkpoint(const std::filesystem::path& dir, const Options& opt, bool force = false);

}  // namespace kbit::testdata
