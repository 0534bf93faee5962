// Synthetic HF checkpoints (see testdata.h). Tensor names and config fields follow the families'
// transformers implementations and released checkpoints (notes/ecosystem.md §1).
#include "kbit/testdata.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "kbit/dtype.h"
#include "kbit/error.h"
#include "kbit/parallel.h"
#include "kbit/rng.h"
#include "kbit/safetensors.h"

namespace kbit::testdata {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr int64_t kChunk = 65536;  // elements per independently seeded chunk

struct FamilyName {
  Family f;
  const char* name;
};
constexpr FamilyName kFamilies[] = {{Family::llama, "llama"},
                                    {Family::qwen3_moe, "qwen3-moe"},
                                    {Family::qwen3_moe_fused, "qwen3-moe-fused"},
                                    {Family::gpt_oss, "gpt-oss"},
                                    {Family::glm4_moe, "glm4-moe"},
                                    {Family::qwen3_tied, "qwen3-tied"}};

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) h = (h ^ uint8_t(c)) * 0x100000001b3ull;
  return h;
}

const char* torch_dtype(const std::string& d) {
  if (d == "BF16") return "bfloat16";
  if (d == "F16") return "float16";
  return "float32";
}

// The dimensions shared by all families, before family overrides.
struct Dims {
  int64_t H, head_dim, heads, kv_heads, I, I_moe, V, E, top_k, layers;
};

class Builder {
 public:
  explicit Builder(std::string dtype) : dtype_(std::move(dtype)) {}
  void linear(const std::string& name, std::vector<int64_t> shape) { add(name, dtype_, std::move(shape), 0, 0.02f, true); }
  void norm(const std::string& name, int64_t n) { add(name, dtype_, {n}, 1.0f, 0.05f, false); }
  void bias(const std::string& name, std::vector<int64_t> shape) { add(name, dtype_, std::move(shape), 0, 0.02f, false); }
  void add(const std::string& name, const std::string& dtype, std::vector<int64_t> shape, float mean, float stddev,
           bool outliers) {
    tensors.push_back({name, dtype, std::move(shape), mean, stddev, outliers});
  }
  std::vector<TensorSpec> tensors;

 private:
  std::string dtype_;
};

void attention(Builder& b, const std::string& p, const Dims& d, bool qkv_bias, bool o_bias, bool qk_norm) {
  const int64_t q = d.heads * d.head_dim, kv = d.kv_heads * d.head_dim;
  b.linear(p + "self_attn.q_proj.weight", {q, d.H});
  if (qkv_bias) b.bias(p + "self_attn.q_proj.bias", {q});
  b.linear(p + "self_attn.k_proj.weight", {kv, d.H});
  if (qkv_bias) b.bias(p + "self_attn.k_proj.bias", {kv});
  b.linear(p + "self_attn.v_proj.weight", {kv, d.H});
  if (qkv_bias) b.bias(p + "self_attn.v_proj.bias", {kv});
  b.linear(p + "self_attn.o_proj.weight", {d.H, q});
  if (o_bias) b.bias(p + "self_attn.o_proj.bias", {d.H});
  if (qk_norm) {
    b.norm(p + "self_attn.q_norm.weight", d.head_dim);
    b.norm(p + "self_attn.k_norm.weight", d.head_dim);
  }
}

void dense_mlp(Builder& b, const std::string& p, int64_t H, int64_t I) {
  b.linear(p + "gate_proj.weight", {I, H});
  b.linear(p + "up_proj.weight", {I, H});
  b.linear(p + "down_proj.weight", {H, I});
}

void per_expert(Builder& b, const std::string& p, const Dims& d) {
  for (int64_t e = 0; e < d.E; ++e) dense_mlp(b, p + "mlp.experts." + std::to_string(e) + ".", d.H, d.I_moe);
}

void layer_norms(Builder& b, const std::string& p, int64_t H) {
  b.norm(p + "input_layernorm.weight", H);
  b.norm(p + "post_attention_layernorm.weight", H);
}

json common_config(const Dims& d, const Options& opt) {
  return {{"hidden_size", d.H},
          {"num_hidden_layers", d.layers},
          {"num_attention_heads", d.heads},
          {"num_key_value_heads", d.kv_heads},
          {"head_dim", d.head_dim},
          {"vocab_size", d.V},
          {"hidden_act", "silu"},
          {"max_position_embeddings", 4096},
          {"initializer_range", 0.02},
          {"torch_dtype", torch_dtype(opt.dtype)},
          {"bos_token_id", 1},
          {"eos_token_id", 2},
          {"use_cache", true},
          {"transformers_version", "4.57.1"},
          {"_kbit_testdata", std::string("kbit-make-testdata --model ") + family_name(opt.family) + " --scale " +
                                 std::to_string(opt.scale) + " --seed " + std::to_string(opt.seed) +
                                 " (synthetic weights)"}};
}

// Attention/RoPE fields the Qwen3 families share (dense and MoE).
json qwen3_attention_config(const Dims& d) {
  return {{"rms_norm_eps", 1e-6},
          {"rope_theta", 1000000.0},
          {"attention_bias", false},
          {"attention_dropout", 0.0},
          {"use_sliding_window", false},
          {"sliding_window", nullptr},
          {"max_window_layers", d.layers}};
}

uint64_t bytes_of(const TensorSpec& t) {
  uint64_t n = uint64_t(st::dtype_bits(t.dtype)) / 8;
  for (int64_t d : t.shape) n *= uint64_t(d);
  return n;
}

}  // namespace

std::optional<Family> parse_family(std::string_view name) {
  for (const FamilyName& f : kFamilies)
    if (name == f.name) return f.f;
  return std::nullopt;
}

const char* family_name(Family f) {
  for (const FamilyName& x : kFamilies)
    if (x.f == f) return x.name;
  return "?";
}

std::vector<Family> all_families() {
  std::vector<Family> v;
  for (const FamilyName& f : kFamilies) v.push_back(f.f);
  return v;
}

uint64_t ModelSpec::tensor_bytes() const {
  uint64_t n = 0;
  for (const TensorSpec& t : tensors) n += bytes_of(t);
  return n;
}

ModelSpec model_spec(const Options& opt) {
  if (opt.dtype != "BF16" && opt.dtype != "F16" && opt.dtype != "F32")
    throw Error("dtype " + opt.dtype + ": the generator writes BF16, F16 or F32");
  if (opt.scale < 1 || opt.scale > 64) throw Error("scale " + std::to_string(opt.scale) + ": use 1..64");
  if (opt.layers < 0 || opt.experts < 0 || opt.shards < 1) throw Error("layers, experts and shards must be positive");
  const int64_t s = opt.scale;
  Dims d{128 * s, 32, 4 * s, 2 * s, 256 * s, 64 * s, 512 * s, 8, 2, 2};
  if (opt.family == Family::gpt_oss) d.E = 4;
  if (opt.family == Family::glm4_moe) d.layers = 3;  // 1 dense + 2 MoE (+ the MTP layer)
  if (opt.layers) d.layers = opt.layers;
  if (opt.experts) d.E = opt.experts;
  d.top_k = std::min<int64_t>(d.top_k, d.E);

  Builder b(opt.dtype);
  json cfg = common_config(d, opt);
  b.linear("model.embed_tokens.weight", {d.V, d.H});
  bool tied = false;
  switch (opt.family) {
    case Family::llama:
      cfg.update({{"architectures", {"LlamaForCausalLM"}},
                  {"model_type", "llama"},
                  {"intermediate_size", d.I},
                  {"rms_norm_eps", 1e-5},
                  {"rope_theta", 500000.0},
                  {"attention_bias", false},
                  {"attention_dropout", 0.0},
                  {"mlp_bias", false},
                  {"pretraining_tp", 1}});
      for (int64_t l = 0; l < d.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        attention(b, p, d, false, false, false);
        dense_mlp(b, p + "mlp.", d.H, d.I);
        layer_norms(b, p, d.H);
      }
      break;
    case Family::qwen3_moe:
    case Family::qwen3_moe_fused:
      cfg.update({{"architectures", {"Qwen3MoeForCausalLM"}},
                  {"model_type", "qwen3_moe"},
                  {"intermediate_size", d.I},
                  {"moe_intermediate_size", d.I_moe},
                  {"num_experts", d.E},
                  {"num_experts_per_tok", d.top_k},
                  {"decoder_sparse_step", 1},
                  {"mlp_only_layers", json::array()},
                  {"norm_topk_prob", true},
                  {"output_router_logits", false},
                  {"router_aux_loss_coef", 0.001}});
      cfg.update(qwen3_attention_config(d));
      for (int64_t l = 0; l < d.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        attention(b, p, d, false, false, true);
        b.linear(p + "mlp.gate.weight", {d.E, d.H});
        if (opt.family == Family::qwen3_moe) {
          per_expert(b, p, d);
        } else {
          b.linear(p + "mlp.experts.gate_up_proj", {d.E, 2 * d.I_moe, d.H});
          b.linear(p + "mlp.experts.down_proj", {d.E, d.H, d.I_moe});
        }
        layer_norms(b, p, d.H);
      }
      break;
    case Family::gpt_oss: {
      json types = json::array();
      for (int64_t l = 0; l < d.layers; ++l) types.push_back(l % 2 == 0 ? "sliding_attention" : "full_attention");
      cfg.update({{"architectures", {"GptOssForCausalLM"}},
                  {"model_type", "gpt_oss"},
                  {"intermediate_size", d.I_moe},
                  {"num_local_experts", d.E},
                  {"num_experts_per_tok", d.top_k},
                  {"experts_per_token", d.top_k},
                  {"layer_types", types},
                  {"sliding_window", 128},
                  {"swiglu_limit", 7.0},
                  {"attention_bias", true},
                  {"attention_dropout", 0.0},
                  {"rms_norm_eps", 1e-5},
                  {"rope_theta", 150000.0},
                  {"router_aux_loss_coef", 0.9},
                  {"output_router_logits", false}});
      for (int64_t l = 0; l < d.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        attention(b, p, d, true, true, false);
        b.add(p + "self_attn.sinks", opt.dtype, {d.heads}, 0.0f, 0.5f, false);
        b.linear(p + "mlp.router.weight", {d.E, d.H});
        b.bias(p + "mlp.router.bias", {d.E});
        b.linear(p + "mlp.experts.gate_up_proj", {d.E, d.H, 2 * d.I_moe});  // [E, K, N], gate/up interleaved
        b.bias(p + "mlp.experts.gate_up_proj_bias", {d.E, 2 * d.I_moe});
        b.linear(p + "mlp.experts.down_proj", {d.E, d.I_moe, d.H});  // [E, K, N]
        b.bias(p + "mlp.experts.down_proj_bias", {d.E, d.H});
        layer_norms(b, p, d.H);
      }
      break;
    }
    case Family::glm4_moe: {
      const int64_t dense = std::min<int64_t>(1, d.layers), shared = 1;
      cfg.update({{"architectures", {"Glm4MoeForCausalLM"}},
                  {"model_type", "glm4_moe"},
                  {"intermediate_size", d.I},
                  {"moe_intermediate_size", d.I_moe},
                  {"n_routed_experts", d.E},
                  {"n_shared_experts", shared},
                  {"num_experts_per_tok", d.top_k},
                  {"first_k_dense_replace", dense},
                  {"n_group", 1},
                  {"topk_group", 1},
                  {"norm_topk_prob", true},
                  {"routed_scaling_factor", 1.0},
                  {"partial_rotary_factor", 0.5},
                  {"attention_bias", true},
                  {"attention_dropout", 0.0},
                  {"use_qk_norm", false},
                  {"num_nextn_predict_layers", 1},
                  {"rms_norm_eps", 1e-5},
                  {"rope_theta", 1000000.0}});
      for (int64_t l = 0; l <= d.layers; ++l) {  // l == layers: the MTP (next-token prediction) layer
        const std::string p = "model.layers." + std::to_string(l) + ".";
        attention(b, p, d, true, false, false);
        if (l < dense) {
          dense_mlp(b, p + "mlp.", d.H, d.I);
        } else {
          b.linear(p + "mlp.gate.weight", {d.E, d.H});
          b.add(p + "mlp.gate.e_score_correction_bias", "F32", {d.E}, 0.0f, 0.01f, false);
          per_expert(b, p, d);
          dense_mlp(b, p + "mlp.shared_experts.", d.H, d.I_moe * shared);
        }
        layer_norms(b, p, d.H);
        if (l == d.layers) {
          b.linear(p + "eh_proj.weight", {d.H, 2 * d.H});
          b.norm(p + "enorm.weight", d.H);
          b.norm(p + "hnorm.weight", d.H);
          b.norm(p + "shared_head.norm.weight", d.H);
        }
      }
      break;
    }
    case Family::qwen3_tied:
      tied = true;
      cfg.update({{"architectures", {"Qwen3ForCausalLM"}},
                  {"model_type", "qwen3"},
                  {"intermediate_size", d.I}});
      cfg.update(qwen3_attention_config(d));
      for (int64_t l = 0; l < d.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        attention(b, p, d, false, false, true);
        dense_mlp(b, p + "mlp.", d.H, d.I);
        layer_norms(b, p, d.H);
      }
      break;
  }
  b.norm("model.norm.weight", d.H);
  if (!tied) b.linear("lm_head.weight", {d.V, d.H});
  cfg["tie_word_embeddings"] = tied;
  return {cfg.dump(2) + "\n", std::move(b.tensors)};
}

void fill_values(const TensorSpec& spec, uint64_t seed, int64_t first, int64_t numel, void* dst) {
  const uint64_t base = seed * 0x9e3779b97f4a7c15ull ^ fnv1a(spec.name);
  const int size = st::dtype_bits(spec.dtype) / 8;
  auto* out = static_cast<uint8_t*>(dst);
  int64_t i = first;
  while (i < first + numel) {
    const int64_t chunk = i / kChunk, end = std::min(first + numel, (chunk + 1) * kChunk);
    Rng rng(base + uint64_t(chunk) * 0xd1b54a32d192ed03ull);
    for (int64_t skip = chunk * kChunk; skip < i; ++skip) {  // only when a split is mid-chunk
      rng.normal();
      if (spec.outliers) rng.next();
    }
    for (; i < end; ++i) {
      float v = spec.mean + spec.stddev * float(rng.normal());
      if (spec.outliers && (rng.next() & 4095) == 0) v *= 8.0f;
      uint8_t* p = out + (i - first) * size;
      if (size == 4) {
        std::memcpy(p, &v, 4);
      } else {
        const uint16_t h = spec.dtype == "BF16" ? f32_to_bf16(v) : f32_to_f16(v);
        std::memcpy(p, &h, 2);
      }
    }
  }
}

Summary write_checkpoint(const fs::path& dir_in, const Options& opt, bool force) {
  const fs::path dir = dir_in.has_filename() ? dir_in : dir_in.parent_path();
  std::error_code ec;
  if (fs::exists(dir, ec) && !force)
    throw Error(dir.string() + ": already exists (use --force to replace it)");
  const ModelSpec spec = model_spec(opt);

  // Shards: consecutive runs of tensors of about equal bytes.
  const int shards = int(std::min<size_t>(size_t(opt.shards), spec.tensors.size()));
  std::vector<std::vector<const TensorSpec*>> shard_tensors(static_cast<size_t>(shards));
  {
    const uint64_t total = spec.tensor_bytes();
    uint64_t done = 0;
    size_t s = 0;
    for (size_t i = 0; i < spec.tensors.size(); ++i) {
      const TensorSpec& t = spec.tensors[i];
      const size_t left = spec.tensors.size() - i;  // keep at least one tensor per remaining shard
      if (!shard_tensors[s].empty() && s + 1 < size_t(shards) &&
          (done >= total * (s + 1) / uint64_t(shards) || left <= size_t(shards) - 1 - s))
        ++s;
      shard_tensors[s].push_back(&t);
      done += bytes_of(t);
    }
  }

  std::string temp_name = ".";  // built piecewise: GCC 12 -O3 warns falsely (-Wrestrict) on "." + s
  temp_name += dir.filename().string();
  temp_name += ".tmp-" + std::to_string(::getpid());
  const fs::path temp = dir.parent_path() / temp_name;
  fs::remove_all(temp, ec);
  if (!fs::create_directories(temp, ec) && ec)
    throw Error(temp.string() + ": cannot create the temporary output directory: " + ec.message());
  Summary sum;
  try {
    std::map<std::string, std::string> weight_map;
    const int threads = resolve_threads(opt.threads);
    std::vector<uint8_t> buf;
    for (int s = 0; s < shards; ++s) {
      char name[64];
      std::snprintf(name, sizeof name, "model-%05d-of-%05d.safetensors", s + 1, shards);
      const std::string file = shards == 1 ? "model.safetensors" : name;
      std::vector<st::Writer::Entry> entries;
      std::map<std::string, const TensorSpec*> by_name;
      for (const TensorSpec* t : shard_tensors[size_t(s)]) {
        entries.push_back({t->name, t->dtype, t->shape});
        by_name[t->name] = t;
        weight_map[t->name] = file;
      }
      st::sort_by_alignment(entries);  // the reference writer's order: every tensor aligned
      st::Writer w(temp / file, entries, {{"format", "pt"}});
      for (const auto& e : entries) {
        const TensorSpec& t = *by_name.at(e.name);
        const int size = st::dtype_bits(t.dtype) / 8;
        int64_t numel = 1;
        for (int64_t x : t.shape) numel *= x;
        const int64_t group = kChunk * 16 * threads;  // elements generated per write
        for (int64_t first = 0; first < numel; first += group) {
          const int64_t n = std::min(group, numel - first);
          buf.resize(size_t(n * size));
          parallel_for((n + kChunk - 1) / kChunk, threads, [&](int64_t c0, int64_t c1) {
            const int64_t a = c0 * kChunk, z = std::min(n, c1 * kChunk);
            fill_values(t, opt.seed, first + a, z - a, buf.data() + a * size);
          });
          w.write(t.name, buf.data(), buf.size());
        }
        sum.tensor_bytes += uint64_t(numel) * uint64_t(size);
        ++sum.tensors;
      }
      w.commit();
      ++sum.files;
    }
    if (shards > 1) st::write_index(temp, weight_map, sum.tensor_bytes);
    st::write_text_atomic(temp / "config.json", spec.config_json);
    st::write_text_atomic(temp / "generation_config.json",
                          json({{"_from_model_config", true}, {"bos_token_id", 1}, {"eos_token_id", 2},
                                {"transformers_version", "4.57.1"}}).dump(2) + "\n");
    // Tokenizer stubs: valid JSON of the right shape, enough for "other files are copied".
    json vocab = json::object();
    for (const char* tok : {"<unk>", "<s>", "</s>", "a", "b", "c"}) vocab[tok] = vocab.size();
    st::write_text_atomic(temp / "tokenizer.json",
                          json({{"version", "1.0"},
                                {"truncation", nullptr},
                                {"padding", nullptr},
                                {"added_tokens", json::array()},
                                {"normalizer", nullptr},
                                {"pre_tokenizer", {{"type", "Whitespace"}}},
                                {"post_processor", nullptr},
                                {"decoder", nullptr},
                                {"model", {{"type", "WordLevel"}, {"vocab", vocab}, {"unk_token", "<unk>"}}}})
                                  .dump(2) + "\n");
    st::write_text_atomic(temp / "tokenizer_config.json",
                          json({{"bos_token", "<s>"}, {"eos_token", "</s>"}, {"unk_token", "<unk>"},
                                {"model_max_length", 4096}, {"tokenizer_class", "PreTrainedTokenizerFast"}})
                                  .dump(2) + "\n");
    if (fs::exists(dir, ec)) fs::remove_all(dir);  // force
    fs::rename(temp, dir);
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(temp, ec);
    throw Error(dir.string() + ": " + e.what());
  } catch (...) {
    fs::remove_all(temp, ec);
    throw;
  }
  return sum;
}

}  // namespace kbit::testdata
