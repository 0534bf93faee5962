#include "kbit/quantize_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <set>

#include "kbit/error.h"
#include "kbit/format.h"

namespace kbit {
namespace {

// Default skip rules, checked in this order (the first match names the reason). They follow
// llama.cpp's tensor_allows_quantization and the skip lists of bnb/GPTQ (notes/ecosystem.md §1):
// only the linear layers of attention, MLP and experts are quantized by default.
struct SkipRule {
  const char* category;
  const char* pattern;
  const char* reason;
};
const SkipRule kSkipRules[] = {
    {"vision",
     R"((^|\.)(visual|vision_tower|vision_model|vision_encoder|multi_modal_projector|mm_projector|audio_tower|audio_encoder)\.)",
     "vision/audio tower: only the language model is quantized"},
    {"embedding",
     R"((embed_tokens|word_embeddings|position_embeddings|token_type_embeddings|(^|\.)wte|(^|\.)wpe|(^|\.)embeddings?)\.weight$)",
     "embedding: a gather, not a GEMM (opt in with --include)"},
    {"lm_head", R"((^|\.)(lm_head|embed_out)\.weight$)", "lm_head: kept in source precision (opt in with --include-lm-head)"},
    {"router",
     R"(((^|\.)gate|shared_expert_gate|(^|\.)router(\.[A-Za-z_]+)?)\.weight$|e_score_correction_bias$)",
     "MoE router/gate: tiny and precision-critical"},
    {"norm", R"((^|\.)[^.]*(norm|ln_[^.]*)[^.]*\.(weight|bias)$)", "norm"},
    {"bias", R"((\.|_)bias$)", "bias"},
    {"ssm", R"((conv1d\.(weight|bias)|(^|\.)A_log|(^|\.)D)$)", "SSM parameter (conv1d, A_log, D)"},
    {"scale", R"((_scale|_scale_inv|_scales|\.scales|input_scale|_zero_point|\.absmax|quant_map)$)",
     "scale or quantization-state tensor"},
};

std::regex compile(const std::string& pattern, const std::string& what) {
  try {
    return std::regex(pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    throw Error(what + " '" + pattern + "' is not a valid regular expression (" + e.what() + ")");
  }
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_float_source(const std::string& dtype) {
  return dtype == "BF16" || dtype == "F16" || dtype == "F32" || dtype == "F8_E4M3";
}

int dtype_align(const std::string& dtype) {
  static const std::map<std::string, int> sizes = {
      {"F64", 8}, {"I64", 8}, {"U64", 8}, {"C64", 8}, {"F32", 4}, {"I32", 4}, {"U32", 4},
      {"F16", 2}, {"BF16", 2}, {"I16", 2}, {"U16", 2}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 1 : it->second;
}

std::string shape_str(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// Projection role of a fused expert tensor from its last name component: does K (the input)
// have the hidden size (gate/up), or N (the output) (down)?
enum class Role { in_hidden, out_hidden, unknown };
Role expert_role(const std::string& name) {
  static const std::regex down(R"((down_proj|w2)(\.weight)?$)"), up(R"((gate_up_proj|gate_proj|up_proj|w1|w3|w13)(\.weight)?$)");
  if (std::regex_search(name, down)) return Role::out_hidden;
  if (std::regex_search(name, up)) return Role::in_hidden;
  return Role::unknown;
}

void set_skip(TensorPlan& t, const std::string& category, const std::string& reason) {
  t.action = Action::copy;
  t.category = category;
  t.reason = reason;
}

}  // namespace

ModelInfo ModelInfo::from_config(const nlohmann::ordered_json& config) {
  ModelInfo m;
  if (!config.is_object()) return m;
  // VL wrappers keep the language model's fields under text_config.
  const auto& c = config.contains("text_config") && config["text_config"].is_object() ? config["text_config"] : config;
  if (config.contains("model_type") && config["model_type"].is_string()) m.model_type = config["model_type"];
  if (c.contains("hidden_size") && c["hidden_size"].is_number_integer()) m.hidden_size = c["hidden_size"];
  if (c.contains("num_hidden_layers") && c["num_hidden_layers"].is_number_integer())
    m.num_hidden_layers = c["num_hidden_layers"];
  if (config.contains("quantization_config") && config["quantization_config"].is_object()) {
    const auto& q = config["quantization_config"];
    if (q.value("quant_method", "") == "kbit") m.already_kbit = true;
    if (q.contains("weight_block_size") && q["weight_block_size"].is_array() && q["weight_block_size"].size() == 2)
      m.fp8_block = {q["weight_block_size"][0].get<int64_t>(), q["weight_block_size"][1].get<int64_t>()};
  }
  return m;
}

size_t Plan::count(Action a) const {
  return size_t(std::count_if(tensors.begin(), tensors.end(), [a](const TensorPlan& t) { return t.action == a; }));
}

std::string packed_name(const std::string& x) { return x + ".kbit_packed"; }
std::string absmax_name(const std::string& x) { return x + ".kbit_absmax"; }
std::string codebook_name_of(const std::string& x) { return x + ".kbit_codebook"; }

std::vector<int64_t> packed_shape(const TensorPlan& t) {
  std::vector<int64_t> s = {k_tiles(t.K), t.N, kBlocksPerTile, t.bits};
  if (t.fused) s.insert(s.begin(), t.E);
  return s;
}

std::vector<int64_t> absmax_shape(const TensorPlan& t) {
  std::vector<int64_t> s = {k_tiles(t.K), t.N, kBlocksPerTile};
  if (t.fused) s.insert(s.begin(), t.E);
  return s;
}

Plan make_plan(const std::vector<SourceTensor>& tensors, const ModelInfo& model, const PlanOptions& opt) {
  if (!valid_bits(opt.bits)) throw Error("--bits " + std::to_string(opt.bits) + ": bits must be 2, 3, 4 or 5");
  if (model.already_kbit)
    throw Error("the source config.json already has quantization_config.quant_method \"kbit\": this checkpoint is "
                "already kbit-quantized; quantize the original weights instead");
  std::vector<std::regex> skip_re;
  for (const SkipRule& r : kSkipRules) skip_re.push_back(std::regex(r.pattern, std::regex::ECMAScript | std::regex::icase));
  std::vector<std::regex> include_re, exclude_re;
  std::vector<std::pair<std::regex, int>> bits_re;
  for (const auto& p : opt.include) include_re.push_back(compile(p, "--include"));
  for (const auto& p : opt.exclude) exclude_re.push_back(compile(p, "--exclude"));
  for (const auto& o : opt.bits_for) {
    if (!valid_bits(o.bits))
      throw Error("--bits-for '" + o.pattern + "=" + std::to_string(o.bits) + "': bits must be 2, 3, 4 or 5");
    bits_re.emplace_back(compile(o.pattern, "--bits-for pattern"), o.bits);
  }
  static const std::regex per_expert(R"(^(.*\.experts)\.(\d+)\.(.+)$)");
  static const std::regex fused_experts(R"(^(.*experts)(\.|$))");
  static const std::regex layer_index(R"((^|\.)layers\.(\d+)\.)");
  static const std::regex mtp_name(R"((^|\.)mtp\.)");

  std::set<std::string> names;
  for (const auto& t : tensors) names.insert(t.name);

  Plan plan;
  plan.tensors.reserve(tensors.size());
  for (const SourceTensor& src : tensors) {
    for (const char* suffix : {".kbit_packed", ".kbit_absmax", ".kbit_codebook"})
      if (ends_with(src.name, suffix))
        throw Error("tensor '" + src.name + "': the source is already kbit-quantized; quantize the original weights");
    TensorPlan t;
    t.src = src;
    t.group = src.name;
    plan.in_bytes += src.nbytes;
    std::smatch m;
    if (std::regex_match(src.name, m, per_expert)) {
      t.layer_experts = m[1];
      t.group = std::string(m[1]) + ".*." + std::string(m[3]);
    } else if (src.shape.size() == 3 && std::regex_search(src.name, m, fused_experts)) {
      t.layer_experts = m[1];
    }
    const std::string& name = src.name;
    const size_t ndim = src.shape.size();

    bool excluded = false, included = false;
    for (size_t i = 0; i < exclude_re.size() && !excluded; ++i)
      if (std::regex_search(name, exclude_re[i])) {
        set_skip(t, "excluded", "excluded by --exclude '" + opt.exclude[i] + "'");
        excluded = true;
      }
    for (const auto& re : include_re) included = included || std::regex_search(name, re);
    if (excluded) {
      plan.tensors.push_back(std::move(t));
      continue;
    }
    t.action = Action::quantize;
    if (!included) {
      // MTP layers (layer index >= num_hidden_layers) are opt-in like llama.cpp's.
      if (std::regex_search(name, m, layer_index) && model.num_hidden_layers >= 0 &&
          std::stoll(m[2]) >= model.num_hidden_layers)
        set_skip(t, "mtp", "MTP layer (layer " + std::string(m[2]) + " >= num_hidden_layers " +
                               std::to_string(model.num_hidden_layers) + "; opt in with --include)");
      else if (std::regex_search(name, mtp_name))
        set_skip(t, "mtp", "MTP module (opt in with --include)");
      else
        for (size_t i = 0; i < std::size(kSkipRules); ++i) {
          if (std::string(kSkipRules[i].category) == "lm_head" && opt.include_lm_head) continue;
          if (std::regex_search(name, skip_re[i])) {
            set_skip(t, kSkipRules[i].category, kSkipRules[i].reason);
            break;
          }
        }
    }
    if (t.action == Action::quantize) {
      const std::string pre = included ? "matched --include but " : "";
      if (!is_float_source(src.dtype))
        set_skip(t, "dtype", pre + "dtype " + src.dtype + " is not a float weight (BF16, F16, F32 or F8_E4M3)");
      else if (ndim < 2 || ndim > 3)
        set_skip(t, "not-matrix", pre + std::to_string(ndim) + "-D tensor " + shape_str(src.shape) + ": not a matrix");
      else if (ndim == 3 && t.layer_experts.empty())
        set_skip(t, "not-matrix", pre + "3-D tensor " + shape_str(src.shape) + " outside an experts module");
      else if (ndim == 2 && !ends_with(name, "weight"))
        set_skip(t, "not-weight", pre + "2-D tensor whose name does not end in 'weight'");
      else if (std::any_of(src.shape.begin(), src.shape.end(), [](int64_t d) { return d <= 0; }))
        set_skip(t, "empty", pre + "empty tensor " + shape_str(src.shape));
      else if (src.shape.back() % kBlockSize != 0)
        set_skip(t, "k-not-multiple-of-32", pre + "K = " + std::to_string(src.shape.back()) +
                                                " (last dimension) is not a multiple of 32");
    }
    if (t.action == Action::quantize && ndim == 3) {
      // Transposed [E, in, out] families (Llama-4, GPT-OSS) would put the hidden size in N for
      // gate/up and in K for down; kbit needs [E, N, K] = [E, out, in].
      const Role role = expert_role(name);
      const int64_t H = model.hidden_size;
      bool transposed = model.model_type == "llama4" || model.model_type == "gpt_oss";
      if (H > 0 && role == Role::in_hidden) transposed = transposed || (src.shape[2] != H && src.shape[1] == H);
      if (H > 0 && role == Role::out_hidden) transposed = transposed || (src.shape[1] != H && src.shape[2] == H);
      if (transposed)
        set_skip(t, "transposed-experts",
                 "transposed expert layout " + shape_str(src.shape) + " = [E, in, out] (model_type '" +
                     model.model_type + "', hidden_size " + std::to_string(H) +
                     "); kbit needs [E, out, in], so these experts stay unquantized");
    }
    if (t.action == Action::quantize) {
      t.fused = ndim == 3;
      t.E = ndim == 3 ? src.shape[0] : 1;
      t.N = src.shape[ndim - 2];
      t.K = src.shape[ndim - 1];
      t.bits = opt.bits;
      for (const auto& [re, bits] : bits_re)
        if (std::regex_search(name, re)) {
          t.bits = bits;
          break;
        }
      if (src.dtype == "F8_E4M3") {
        const std::string scale = name + "_scale_inv";
        if (!names.count(scale))
          throw Error("tensor '" + name + "' " + shape_str(src.shape) + " is F8_E4M3 but has no block scale '" + scale +
                      "' (F32, one per " + std::to_string(model.fp8_block[0]) + "x" + std::to_string(model.fp8_block[1]) +
                      " block); only block-scaled fp8 (DeepSeek-V3 style) is supported: --exclude it or "
                      "dequantize the checkpoint first");
        t.fp8_scale = scale;
      }
    }
    plan.tensors.push_back(std::move(t));
  }

  // F8 block scales of quantized weights are consumed (dequantized into the weight).
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < plan.tensors.size(); ++i) index_of[plan.tensors[i].src.name] = i;
  for (const TensorPlan& t : plan.tensors)
    if (t.action == Action::quantize && !t.fp8_scale.empty()) {
      TensorPlan& s = plan.tensors[index_of.at(t.fp8_scale)];
      s.action = Action::drop;
      s.category = "fp8-scale";
      s.reason = "block scale of F8_E4M3 '" + t.src.name + "' (applied before quantizing, not copied)";
    }

  // Expert groups: every quantized expert of one projection in one layer shares codebook and s.
  std::map<std::string, size_t> group_at;
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const TensorPlan& t = plan.tensors[i];
    if (t.action != Action::quantize) continue;
    auto [it, fresh] = group_at.emplace(t.group, plan.groups.size());
    if (fresh) plan.groups.push_back({t.group, {}});
    auto& members = plan.groups[it->second].second;
    if (!members.empty() && plan.tensors[members.front()].bits != t.bits)
      throw Error("expert group '" + t.group + "': '" + plan.tensors[members.front()].src.name + "' gets " +
                  std::to_string(plan.tensors[members.front()].bits) + " bits but '" + t.src.name + "' gets " +
                  std::to_string(t.bits) + "; all experts of one projection share one codebook (FORMAT §6), so "
                  "give them one width in --bits-for");
    members.push_back(i);
  }

  // Loud warning per layer whose expert matrices are not all quantized.
  struct LayerCount {
    size_t total = 0, quantized = 0;
    std::string reason;
  };
  std::vector<std::string> layer_order;
  std::map<std::string, LayerCount> layers;
  for (const TensorPlan& t : plan.tensors) {
    if (t.layer_experts.empty() || t.src.shape.size() < 2 || t.action == Action::drop) continue;
    if (t.category == "bias" || t.category == "scale" || t.category == "norm") continue;
    if (!layers.count(t.layer_experts)) layer_order.push_back(t.layer_experts);
    LayerCount& c = layers[t.layer_experts];
    ++c.total;
    if (t.action == Action::quantize) ++c.quantized;
    else if (c.reason.empty()) c.reason = t.src.name + ": " + t.reason;
  }
  for (const auto& l : layer_order) {
    const LayerCount& c = layers[l];
    if (c.quantized < c.total)
      plan.warnings.push_back("WARNING: experts of " + l + ": only " + std::to_string(c.quantized) + " of " +
                              std::to_string(c.total) + " expert matrices are quantized (e.g. " + c.reason + ")");
  }

  // Output tensors and shards: each source tensor's outputs stay in one shard, source order.
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    TensorPlan& t = plan.tensors[i];
    std::vector<OutTensor> unit;
    if (t.action == Action::copy) {
      unit.push_back({t.src.name, t.src.dtype, t.src.shape, t.src.nbytes, i, OutKind::copy});
    } else if (t.action == Action::quantize) {
      const auto ps = packed_shape(t), as = absmax_shape(t);
      const uint64_t pb = uint64_t(t.E * tiled_words(t.N, t.K, t.bits)) * 4;
      const uint64_t ab = uint64_t(t.E * tiled_absmax_bytes(t.N, t.K));
      const uint64_t cb = uint64_t(codebook_size(t.bits)) * 4;
      unit.push_back({packed_name(t.src.name), "I32", ps, pb, i, OutKind::packed});
      unit.push_back({codebook_name_of(t.src.name), "F32", {codebook_size(t.bits)}, cb, i, OutKind::codebook});
      unit.push_back({absmax_name(t.src.name), "U8", as, ab, i, OutKind::absmax});
      plan.quantized_weights += t.E * t.N * t.K;
      plan.quantized_out_bytes += pb + ab + cb;
    }
    uint64_t bytes = 0;
    for (const auto& o : unit) bytes += o.nbytes;
    t.out_bytes = bytes;
    if (unit.empty()) continue;
    if (plan.shards.empty() || (plan.shards.back().bytes + bytes > opt.max_shard_bytes && !plan.shards.back().tensors.empty()))
      plan.shards.emplace_back();
    OutShard& s = plan.shards.back();
    for (auto& o : unit) s.tensors.push_back(std::move(o));
    s.bytes += bytes;
    plan.out_bytes += bytes;
  }
  for (size_t i = 0; i < plan.shards.size(); ++i) {
    OutShard& s = plan.shards[i];
    // Alignment descending keeps every tensor aligned to its element size (the data section
    // starts 8-byte aligned), as the reference writer does; ties keep source order.
    std::stable_sort(s.tensors.begin(), s.tensors.end(),
                     [](const OutTensor& a, const OutTensor& b) { return dtype_align(a.dtype) > dtype_align(b.dtype); });
    char file[64];
    if (plan.shards.size() == 1)
      std::snprintf(file, sizeof file, "model.safetensors");
    else
      std::snprintf(file, sizeof file, "model-%05zu-of-%05zu.safetensors", i + 1, plan.shards.size());
    s.file = file;
  }

  std::set<std::string> seen;
  for (const TensorPlan& t : plan.tensors)
    if (t.action == Action::copy && t.src.shape.size() >= 2) {
      std::string module = ends_with(t.src.name, ".weight") ? t.src.name.substr(0, t.src.name.size() - 7) : t.src.name;
      if (seen.insert(module).second) plan.modules_not_converted.push_back(module);
    }
  return plan;
}

std::string kbit_metadata_value(const TensorPlan& t, const std::string& codebook, int scale_exp, Encoder encoder) {
  nlohmann::ordered_json j;
  j["bits"] = t.bits;
  j["shape"] = t.fused ? std::vector<int64_t>{t.E, t.N, t.K} : std::vector<int64_t>{t.N, t.K};
  j["dtype"] = t.src.dtype;
  j["codebook"] = codebook;
  j["scale_exp"] = scale_exp;
  j["encoder"] = encoder_name(encoder);
  return j.dump();
}

nlohmann::ordered_json quantized_config(const nlohmann::ordered_json& source_config, const Plan& plan,
                                        const PlanOptions& opt) {
  nlohmann::ordered_json config = source_config.is_object() ? source_config : nlohmann::ordered_json::object();
  nlohmann::ordered_json q;
  q["quant_method"] = "kbit";
  q["format_version"] = kFormatVersion;
  q["bits"] = opt.bits;
  q["blocksize"] = kBlockSize;
  q["absmax_format"] = "e4m4";
  q["layout"] = "tiled64";
  q["codebook"] = opt.codebook;
  q["encoder"] = encoder_name(opt.encoder);
  q["modules_not_converted"] = plan.modules_not_converted;
  if (!opt.bits_for.empty()) {
    // Ordered: the first pattern that matches a tensor name decides its bits.
    nlohmann::ordered_json overrides = nlohmann::ordered_json::array();
    for (const auto& o : opt.bits_for) overrides.push_back({{"pattern", o.pattern}, {"bits", o.bits}});
    q["bits_overrides"] = overrides;
  }
  q["quantizer"] = "kbit-quantize " KBIT_VERSION_STRING;
  if (config.contains("quantization_config")) config["quantization_config_source"] = config["quantization_config"];
  config["quantization_config"] = q;
  return config;
}

nlohmann::ordered_json shard_index(const Plan& plan) {
  nlohmann::ordered_json idx;
  idx["metadata"] = {{"total_size", plan.out_bytes}};
  nlohmann::ordered_json map = nlohmann::ordered_json::object();
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& s : plan.shards)
    for (const auto& t : s.tensors) entries.emplace_back(t.name, s.file);
  std::sort(entries.begin(), entries.end());
  for (const auto& [name, file] : entries) map[name] = file;
  idx["weight_map"] = map;
  return idx;
}

uint64_t parse_size(const std::string& text) {
  static const std::regex re(R"(^\s*([0-9]+(\.[0-9]+)?)\s*([kmgt]i?b?|b)?\s*$)", std::regex::icase);
  std::smatch m;
  if (!std::regex_match(text, m, re))
    throw Error("size '" + text + "': use a number of bytes with an optional unit, e.g. 5GB, 500MB, 2GiB");
  const double value = std::stod(m[1]);
  std::string unit = m[3];
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  double mult = 1;
  if (!unit.empty() && unit != "b") {
    const bool binary = unit.size() >= 2 && unit[1] == 'i';
    const int power = std::string("kmgt").find(unit[0]) + 1;
    mult = std::pow(binary ? 1024.0 : 1000.0, power);
  }
  const double bytes = value * mult;
  if (bytes < 1 || bytes > 1e18) throw Error("size '" + text + "' is out of range");
  return uint64_t(bytes);
}

BitsOverride parse_bits_override(const std::string& text) {
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 >= text.size())
    throw Error("--bits-for '" + text + "': expected PATTERN=BITS, e.g. 'down_proj=5'");
  BitsOverride o;
  o.pattern = text.substr(0, eq);
  const std::string b = text.substr(eq + 1);
  if (b.size() != 1 || b[0] < '2' || b[0] > '5')
    throw Error("--bits-for '" + text + "': bits must be 2, 3, 4 or 5 (got '" + b + "')");
  o.bits = b[0] - '0';
  compile(o.pattern, "--bits-for pattern");
  return o;
}

std::string format_bytes(uint64_t bytes) {
  char buf[32];
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1000 && u < 4) {
    v /= 1000;
    ++u;
  }
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
  return buf;
}

}  // namespace kbit
