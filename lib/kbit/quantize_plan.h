// What kbit-quantize will do to a checkpoint, decided before a byte is read (pure logic, no I/O):
// which tensors are quantized and why the others are not, the MoE expert groups that share one
// codebook and one scale (FORMAT §6), the output tensors of FORMAT §7 and their shards, and the
// config.json / shard metadata entries. The runner (quantize_run.h) executes a Plan; --dry-run
// prints one. Tested in tests/test_quantize_plan.cpp.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kbit/encode.h"

namespace kbit {

// A source tensor as the header describes it (no data).
struct SourceTensor {
  std::string name;
  std::string dtype;  // safetensors spelling
  std::vector<int64_t> shape;
  uint64_t nbytes = 0;
};

// The few config.json fields the selection rules use; every field is optional.
struct ModelInfo {
  std::string model_type;
  int64_t hidden_size = 0;         // 0: unknown
  int64_t num_hidden_layers = -1;  // -1: unknown; layers at or past it are MTP layers
  std::vector<int64_t> fp8_block = {128, 128};  // quantization_config.weight_block_size (fp8 sources)
  bool already_kbit = false;       // config already has quantization_config.quant_method == "kbit"
  static ModelInfo from_config(const nlohmann::ordered_json& config);
};

struct BitsOverride {
  std::string pattern;  // ECMAScript regex, searched anywhere in the tensor name
  int bits = 4;
};

struct PlanOptions {
  int bits = 4;
  std::vector<BitsOverride> bits_for;  // first match wins
  std::vector<std::string> include;    // quantize even when a default rule would skip
  std::vector<std::string> exclude;    // never quantize (wins over include)
  bool include_lm_head = false;
  std::string codebook = "nf";         // nf | bnf | path to a file of 2^k floats
  Encoder encoder = Encoder::search;
  uint64_t max_shard_bytes = 5'000'000'000;
};

enum class Action {
  quantize,  // becomes X.kbit_packed / X.kbit_absmax / X.kbit_codebook
  copy,      // copied unchanged (reason says why it was not quantized)
  drop,      // consumed: the block scale of an F8_E4M3 weight that is quantized
};

struct TensorPlan {
  SourceTensor src;
  Action action = Action::copy;
  std::string category;  // short skip class for counts: "norm", "embedding", ... ("" if quantized)
  std::string reason;    // human sentence: why it is not quantized
  int bits = 0;
  int64_t E = 1, N = 0, K = 0;
  bool fused = false;           // 3-D [E, N, K]
  std::string group;            // expert group key (per-expert 2D tensors) or the name itself
  std::string fp8_scale;        // name of the F8_E4M3 block-scale sibling, if any
  std::string layer_experts;    // "model.layers.3.mlp.experts" for expert tensors, else ""
  uint64_t out_bytes = 0;       // bytes this tensor contributes to the output
};

// One tensor of the output: copied from a source tensor or one of the three of a quantized one.
enum class OutKind { copy, packed, absmax, codebook };
struct OutTensor {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  uint64_t nbytes = 0;
  size_t source = 0;  // index into Plan::tensors
  OutKind kind = OutKind::copy;
};

struct OutShard {
  std::string file;                 // model.safetensors or model-0000i-of-0000n.safetensors
  std::vector<OutTensor> tensors;   // in write order: alignment descending, then source order
  uint64_t bytes = 0;               // tensor bytes (the header comes on top)
};

struct Plan {
  std::vector<TensorPlan> tensors;  // source order
  std::vector<OutShard> shards;
  std::vector<std::string> warnings;
  std::vector<std::pair<std::string, std::vector<size_t>>> groups;  // group key -> tensor indices
  uint64_t in_bytes = 0, out_bytes = 0;
  int64_t quantized_weights = 0;     // elements of quantized tensors
  uint64_t quantized_out_bytes = 0;  // their packed + absmax + codebook bytes
  std::vector<std::string> modules_not_converted;  // matrices left unquantized, ".weight" dropped
  size_t count(Action a) const;
};

// Throws kbit::Error (naming the tensor) for inputs that cannot be planned: an already quantized
// checkpoint, an F8_E4M3 weight without its block scale, experts of one group given different
// bit widths, a bad regex.
Plan make_plan(const std::vector<SourceTensor>& tensors, const ModelInfo& model, const PlanOptions& opt);

// Output names of FORMAT §7.
std::string packed_name(const std::string& x);
std::string absmax_name(const std::string& x);
std::string codebook_name_of(const std::string& x);

// Shapes of FORMAT §7 for [N, K] (fused: [E, N, K]) at k bits.
std::vector<int64_t> packed_shape(const TensorPlan& t);
std::vector<int64_t> absmax_shape(const TensorPlan& t);

// The "kbit.X" metadata value: {"bits","shape","dtype","codebook","scale_exp","encoder"}.
std::string kbit_metadata_value(const TensorPlan& t, const std::string& codebook, int scale_exp,
                                Encoder encoder);
// config.json with "quantization_config" added (the source's own is replaced and kept under
// "quantization_config_source" when it was fp8).
nlohmann::ordered_json quantized_config(const nlohmann::ordered_json& source_config, const Plan& plan,
                                        const PlanOptions& opt);
// model.safetensors.index.json for a plan with more than one shard.
nlohmann::ordered_json shard_index(const Plan& plan);

// "5GB", "500MB", "2GiB", "123" (bytes) -> bytes. Throws kbit::Error on anything else.
uint64_t parse_size(const std::string& text);
// "down_proj=5" -> {pattern, bits}; the split is at the last '='. Throws kbit::Error.
BitsOverride parse_bits_override(const std::string& text);
// 1234567 -> "1.23 MB".
std::string format_bytes(uint64_t bytes);

}  // namespace kbit
