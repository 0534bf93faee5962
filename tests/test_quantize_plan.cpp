// kbit-quantize's planning (lib/kbit/quantize_plan.h), no I/O: the selection rules on the tensor
// names of Llama, Qwen3-MoE, GLM-4.x-MoE, fused and transposed 3-D experts, BERT and VL wrappers
// (notes/ecosystem.md §1), expert groups, --include/--exclude/--bits-for, fp8 sources, output
// names and shapes of FORMAT §7, sharding and alignment order, config.json and the index.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "kbit/error.h"
#include "kbit/format.h"
#include "kbit/quantize_plan.h"
#include "kbit_config_checks.h"

using namespace kbit;

namespace {

SourceTensor T(const std::string& name, std::vector<int64_t> shape, const std::string& dtype = "BF16") {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const uint64_t esize = dtype == "F32" || dtype == "I32" ? 4 : dtype == "U8" || dtype == "F8_E4M3" ? 1 : dtype == "I64" ? 8 : 2;
  return {name, dtype, shape, uint64_t(n) * esize};
}

const TensorPlan& find(const Plan& p, const std::string& name) {
  for (const auto& t : p.tensors)
    if (t.src.name == name) return t;
  FAIL("no tensor " << name);
  throw 0;
}

std::vector<SourceTensor> llama(int layers, int64_t H = 256, int64_t I = 512, int64_t V = 1000) {
  std::vector<SourceTensor> v = {T("model.embed_tokens.weight", {V, H})};
  for (int l = 0; l < layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    for (const char* n : {"q_proj", "k_proj", "v_proj", "o_proj"}) v.push_back(T(p + "self_attn." + n + ".weight", {H, H}));
    v.push_back(T(p + "mlp.gate_proj.weight", {I, H}));
    v.push_back(T(p + "mlp.up_proj.weight", {I, H}));
    v.push_back(T(p + "mlp.down_proj.weight", {H, I}));
    v.push_back(T(p + "input_layernorm.weight", {H}));
    v.push_back(T(p + "post_attention_layernorm.weight", {H}));
  }
  v.push_back(T("model.norm.weight", {H}));
  v.push_back(T("lm_head.weight", {V, H}));
  return v;
}

// Qwen3-MoE per-expert naming; GLM adds e_score_correction_bias, shared experts and q/k/v biases.
std::vector<SourceTensor> moe(int layers, int E, bool glm, int64_t H = 128, int64_t I = 64) {
  std::vector<SourceTensor> v = {T("model.embed_tokens.weight", {500, H})};
  for (int l = 0; l < layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    for (const char* n : {"q_proj", "k_proj", "v_proj", "o_proj"}) v.push_back(T(p + "self_attn." + n + ".weight", {H, H}));
    if (glm)
      for (const char* n : {"q_proj", "k_proj", "v_proj"}) v.push_back(T(p + "self_attn." + n + ".bias", {H}));
    else
      v.push_back(T(p + "self_attn.q_norm.weight", {32}));
    if (glm && l == 0) {  // first_k_dense_replace = 1
      v.push_back(T(p + "mlp.gate_proj.weight", {4 * I, H}));
      v.push_back(T(p + "mlp.up_proj.weight", {4 * I, H}));
      v.push_back(T(p + "mlp.down_proj.weight", {H, 4 * I}));
      continue;
    }
    v.push_back(T(p + "mlp.gate.weight", {E, H}));
    if (glm) {
      v.push_back(T(p + "mlp.gate.e_score_correction_bias", {E}, "F32"));
      v.push_back(T(p + "mlp.shared_experts.gate_proj.weight", {I, H}));
      v.push_back(T(p + "mlp.shared_experts.down_proj.weight", {H, I}));
    }
    for (int e = 0; e < E; ++e) {
      const std::string x = p + "mlp.experts." + std::to_string(e) + ".";
      v.push_back(T(x + "gate_proj.weight", {I, H}));
      v.push_back(T(x + "up_proj.weight", {I, H}));
      v.push_back(T(x + "down_proj.weight", {H, I}));
    }
  }
  v.push_back(T("model.norm.weight", {H}));
  v.push_back(T("lm_head.weight", {500, H}));
  return v;
}

}  // namespace

TEST_CASE("plan llama dense quantizes attention and mlp and skips the rest with reasons") {
  auto src = llama(2);
  src.push_back(T("model.layers.0.self_attn.q_proj.bias", {256}));
  const Plan p = make_plan(src, {}, {});
  CHECK(p.count(Action::quantize) == 14);
  for (const char* n : {"q_proj", "k_proj", "v_proj", "o_proj"})
    CHECK(find(p, std::string("model.layers.1.self_attn.") + n + ".weight").action == Action::quantize);
  CHECK(find(p, "model.layers.0.mlp.gate_proj.weight").action == Action::quantize);  // not a router
  CHECK(find(p, "model.embed_tokens.weight").category == "embedding");
  CHECK(find(p, "lm_head.weight").category == "lm_head");
  CHECK(find(p, "model.norm.weight").category == "norm");
  CHECK(find(p, "model.layers.1.input_layernorm.weight").category == "norm");
  CHECK(find(p, "model.layers.0.self_attn.q_proj.bias").category == "bias");
  for (const auto& t : p.tensors)
    if (t.action != Action::quantize) CHECK_FALSE(t.reason.empty());
  const TensorPlan& down = find(p, "model.layers.0.mlp.down_proj.weight");
  CHECK(down.N == 256);
  CHECK(down.K == 512);
  CHECK(down.bits == 4);
  CHECK(p.warnings.empty());
}

TEST_CASE("plan opt-ins: include-lm-head and include for embeddings and exclude wins") {
  PlanOptions o;
  o.include_lm_head = true;
  Plan p = make_plan(llama(1), {}, o);
  CHECK(find(p, "lm_head.weight").action == Action::quantize);
  CHECK(find(p, "model.embed_tokens.weight").action == Action::copy);
  o.include = {"embed_tokens"};
  o.exclude = {"mlp\\.down_proj", "lm_head"};
  p = make_plan(llama(1), {}, o);
  CHECK(find(p, "model.embed_tokens.weight").action == Action::quantize);
  CHECK(find(p, "lm_head.weight").category == "excluded");
  CHECK(find(p, "model.layers.0.mlp.down_proj.weight").reason.find("--exclude") != std::string::npos);
  // --include cannot make a 1-D norm a matrix
  o.include = {"norm"};
  p = make_plan(llama(1), {}, o);
  CHECK(find(p, "model.norm.weight").category == "not-matrix");
  CHECK(find(p, "model.norm.weight").reason.find("--include") != std::string::npos);
}

TEST_CASE("plan qwen3 moe groups per-expert tensors of one projection and layer") {
  const Plan p = make_plan(moe(2, 8, false), {}, {});
  CHECK(find(p, "model.layers.0.mlp.gate.weight").category == "router");
  CHECK(find(p, "model.layers.0.self_attn.q_norm.weight").category == "norm");
  std::map<std::string, size_t> sizes;
  for (const auto& [key, members] : p.groups) sizes[key] = members.size();
  CHECK(sizes.at("model.layers.0.mlp.experts.*.gate_proj.weight") == 8);
  CHECK(sizes.at("model.layers.1.mlp.experts.*.down_proj.weight") == 8);
  CHECK(sizes.at("model.layers.1.self_attn.o_proj.weight") == 1);
  CHECK(find(p, "model.layers.1.mlp.experts.5.up_proj.weight").group == "model.layers.1.mlp.experts.*.up_proj.weight");
  CHECK(find(p, "model.layers.1.mlp.experts.5.up_proj.weight").layer_experts == "model.layers.1.mlp.experts");
  CHECK(p.count(Action::quantize) == 2 * (4 + 24));
  CHECK(p.warnings.empty());
}

TEST_CASE("plan glm4 moe skips routers and score bias and biases and the mtp layer") {
  ModelInfo m;
  m.num_hidden_layers = 2;
  auto src = moe(3, 4, true);  // layer 2 is the MTP layer
  const Plan p = make_plan(src, m, {});
  CHECK(find(p, "model.layers.1.mlp.gate.weight").category == "router");
  CHECK(find(p, "model.layers.1.mlp.gate.e_score_correction_bias").category == "router");
  CHECK(find(p, "model.layers.1.self_attn.k_proj.bias").category == "bias");
  CHECK(find(p, "model.layers.0.mlp.gate_proj.weight").action == Action::quantize);  // dense first layer
  CHECK(find(p, "model.layers.1.mlp.shared_experts.gate_proj.weight").action == Action::quantize);
  CHECK(find(p, "model.layers.1.mlp.shared_experts.gate_proj.weight").group ==
        "model.layers.1.mlp.shared_experts.gate_proj.weight");
  CHECK(find(p, "model.layers.2.mlp.experts.0.gate_proj.weight").category == "mtp");
  // The MTP layer's experts are all unquantized: loud warning for that layer only.
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0].find("model.layers.2.mlp.experts") != std::string::npos);
  CHECK(p.warnings[0].find("0 of 12") != std::string::npos);
  PlanOptions o;
  o.include = {"layers\\.2\\."};
  CHECK(make_plan(src, m, o).warnings.empty());
}

TEST_CASE("plan fused 3-D experts are quantized as E matrices") {
  const int64_t E = 8, H = 128, I = 64;
  ModelInfo m;
  m.hidden_size = H;
  const std::vector<SourceTensor> src = {T("model.layers.0.mlp.experts.gate_up_proj", {E, 2 * I, H}),
                                         T("model.layers.0.mlp.experts.down_proj", {E, H, I}),
                                         T("model.layers.0.mlp.gate.weight", {E, H})};
  const Plan p = make_plan(src, m, {});
  const TensorPlan& gu = find(p, "model.layers.0.mlp.experts.gate_up_proj");
  REQUIRE(gu.action == Action::quantize);
  CHECK(gu.fused);
  CHECK(gu.E == E);
  CHECK(gu.N == 2 * I);
  CHECK(gu.K == H);
  CHECK(packed_shape(gu) == std::vector<int64_t>{E, k_tiles(H), 2 * I, 2, 4});
  CHECK(absmax_shape(gu) == std::vector<int64_t>{E, k_tiles(H), 2 * I, 2});
  CHECK(find(p, "model.layers.0.mlp.experts.down_proj").K == I);
  CHECK(p.warnings.empty());
}

TEST_CASE("plan transposed expert layouts are refused by name with a loud warning") {
  const int64_t E = 4, H = 128, I = 48;
  const std::vector<SourceTensor> src = {T("model.layers.0.feed_forward.experts.gate_up_proj", {E, H, 2 * I}),
                                         T("model.layers.0.feed_forward.experts.down_proj", {E, I, H})};
  ModelInfo m;
  m.hidden_size = H;
  Plan p = make_plan(src, m, {});
  CHECK(p.count(Action::quantize) == 0);
  CHECK(find(p, "model.layers.0.feed_forward.experts.gate_up_proj").category == "transposed-experts");
  CHECK(find(p, "model.layers.0.feed_forward.experts.down_proj").category == "transposed-experts");
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0].find("WARNING") == 0);
  CHECK(p.warnings[0].find("0 of 2") != std::string::npos);
  // Known transposed families are refused even without hidden_size.
  ModelInfo llama4;
  llama4.model_type = "llama4";
  CHECK(make_plan(src, llama4, {}).count(Action::quantize) == 0);
}

TEST_CASE("plan structural skips: K not a multiple of 32 and non-float and 3-D outside experts") {
  const std::vector<SourceTensor> src = {T("a.proj.weight", {64, 100}), T("b.position_ids", {1, 512}, "I64"),
                                         T("c.conv.weight", {64, 64, 3}), T("d.proj.weight", {64, 16}),
                                         T("e.buffer", {64, 64}), T("f.proj.weight", {64, 96})};
  const Plan p = make_plan(src, {}, {});
  CHECK(find(p, "a.proj.weight").category == "k-not-multiple-of-32");
  CHECK(find(p, "a.proj.weight").reason.find("K = 100") != std::string::npos);
  CHECK(find(p, "b.position_ids").category == "dtype");
  CHECK(find(p, "c.conv.weight").category == "not-matrix");
  CHECK(find(p, "d.proj.weight").category == "k-not-multiple-of-32");
  CHECK(find(p, "e.buffer").category == "not-weight");
  CHECK(find(p, "f.proj.weight").action == Action::quantize);  // K % 64 == 32 is fine
}

TEST_CASE("plan bert and vision towers") {
  const std::vector<SourceTensor> src = {
      T("embeddings.word_embeddings.weight", {1000, 384}), T("embeddings.position_embeddings.weight", {512, 384}),
      T("embeddings.LayerNorm.weight", {384}), T("encoder.layer.0.attention.self.query.weight", {384, 384}),
      T("encoder.layer.0.attention.self.query.bias", {384}), T("encoder.layer.0.intermediate.dense.weight", {1536, 384}),
      T("encoder.layer.0.output.dense.weight", {384, 1536}), T("encoder.layer.0.output.LayerNorm.bias", {384}),
      T("pooler.dense.weight", {384, 384}), T("model.visual.blocks.0.attn.qkv.weight", {384, 384}),
      T("model.language_model.layers.0.mlp.down_proj.weight", {384, 1536})};
  const Plan p = make_plan(src, {}, {});
  CHECK(find(p, "embeddings.word_embeddings.weight").category == "embedding");
  CHECK(find(p, "embeddings.position_embeddings.weight").category == "embedding");
  CHECK(find(p, "embeddings.LayerNorm.weight").category == "norm");
  CHECK(find(p, "encoder.layer.0.output.LayerNorm.bias").category == "norm");
  CHECK(find(p, "encoder.layer.0.attention.self.query.bias").category == "bias");
  CHECK(find(p, "model.visual.blocks.0.attn.qkv.weight").category == "vision");
  CHECK(p.count(Action::quantize) == 5);
}

TEST_CASE("plan bits-for: first match wins and an expert group must agree") {
  PlanOptions o;
  o.bits = 3;
  o.bits_for = {parse_bits_override("down_proj=5"), parse_bits_override("proj=2")};
  Plan p = make_plan(moe(1, 4, false), {}, o);
  CHECK(find(p, "model.layers.0.mlp.experts.2.down_proj.weight").bits == 5);
  CHECK(find(p, "model.layers.0.mlp.experts.2.up_proj.weight").bits == 2);
  CHECK(find(p, "model.layers.0.self_attn.q_proj.weight").bits == 2);
  o.bits_for = {parse_bits_override("experts\\.1\\.=5")};
  CHECK_THROWS_WITH_AS(make_plan(moe(1, 4, false), {}, o), doctest::Contains("share one codebook"), Error);
  CHECK_THROWS_AS(parse_bits_override("down_proj=6"), Error);
  CHECK_THROWS_AS(parse_bits_override("down_proj"), Error);
  CHECK_THROWS_AS(parse_bits_override("(=4"), Error);
  CHECK(parse_bits_override("a=b=4").pattern == "a=b");
}

TEST_CASE("plan fp8 sources consume their block scale and need one") {
  std::vector<SourceTensor> src = {T("model.layers.0.mlp.down_proj.weight", {256, 512}, "F8_E4M3"),
                                   T("model.layers.0.mlp.down_proj.weight_scale_inv", {2, 4}, "F32")};
  Plan p = make_plan(src, {}, {});
  CHECK(find(p, "model.layers.0.mlp.down_proj.weight").action == Action::quantize);
  CHECK(find(p, "model.layers.0.mlp.down_proj.weight").fp8_scale == "model.layers.0.mlp.down_proj.weight_scale_inv");
  CHECK(find(p, "model.layers.0.mlp.down_proj.weight_scale_inv").action == Action::drop);
  for (const auto& s : p.shards)
    for (const auto& o : s.tensors) CHECK(o.name.find("scale_inv") == std::string::npos);
  // Excluded fp8 weights keep their scale (both copied).
  PlanOptions o;
  o.exclude = {"down_proj"};
  p = make_plan(src, {}, o);
  CHECK(find(p, "model.layers.0.mlp.down_proj.weight_scale_inv").action == Action::copy);
  src.pop_back();
  CHECK_THROWS_WITH_AS(make_plan(src, {}, {}), doctest::Contains("model.layers.0.mlp.down_proj.weight"), Error);
}

TEST_CASE("plan refuses an already quantized source") {
  CHECK_THROWS_WITH_AS(make_plan({T("x.weight.kbit_packed", {1, 4, 2, 4}, "I32")}, {}, {}),
                       doctest::Contains("already kbit-quantized"), Error);
  ModelInfo m;
  m.already_kbit = true;
  CHECK_THROWS_AS(make_plan(llama(1), m, {}), Error);
  CHECK(ModelInfo::from_config({{"quantization_config", {{"quant_method", "kbit"}}}}).already_kbit);
}

TEST_CASE("plan output names shapes sizes and alignment order") {
  const std::vector<SourceTensor> src = {T("a.norm.weight", {33}), T("a.proj.weight", {3, 96}, "F32")};
  const Plan p = make_plan(src, {}, {});
  REQUIRE(p.shards.size() == 1);
  const OutShard& s = p.shards[0];
  CHECK(s.file == "model.safetensors");
  REQUIRE(s.tensors.size() == 4);
  // 4-byte packed and codebook first, then the BF16 copy, then the U8 absmax
  CHECK(s.tensors[0].name == "a.proj.weight.kbit_packed");
  CHECK(s.tensors[0].dtype == "I32");
  CHECK(s.tensors[0].shape == std::vector<int64_t>{2, 3, 2, 4});
  CHECK(s.tensors[0].nbytes == 2 * 3 * 2 * 4 * 4);
  CHECK(s.tensors[1].name == "a.proj.weight.kbit_codebook");
  CHECK(s.tensors[1].shape == std::vector<int64_t>{16});
  CHECK(s.tensors[2].name == "a.norm.weight");
  CHECK(s.tensors[3].name == "a.proj.weight.kbit_absmax");
  CHECK(s.tensors[3].dtype == "U8");
  CHECK(s.tensors[3].shape == std::vector<int64_t>{2, 3, 2});
  uint64_t offset = 0;
  for (const auto& t : s.tensors) {
    const uint64_t align = t.dtype == "U8" ? 1 : t.dtype == "BF16" ? 2 : 4;
    CHECK(offset % align == 0);
    offset += t.nbytes;
  }
  CHECK(p.out_bytes == offset);
  CHECK(p.quantized_weights == 3 * 96);
}

TEST_CASE("plan shards respect the size limit and keep a tensor's outputs together") {
  PlanOptions o;
  o.max_shard_bytes = 200'000;
  const Plan p = make_plan(llama(2), {}, o);
  REQUIRE(p.shards.size() > 2);
  CHECK(p.shards[0].file == "model-00001-of-0000" + std::to_string(p.shards.size()) + ".safetensors");
  std::map<std::string, std::string> shard_of;
  for (const auto& s : p.shards) {
    CHECK((s.bytes <= o.max_shard_bytes || s.tensors.size() == 1));
    for (const auto& t : s.tensors) shard_of[t.name] = s.file;
  }
  CHECK(shard_of.at("model.layers.1.mlp.down_proj.weight.kbit_packed") ==
        shard_of.at("model.layers.1.mlp.down_proj.weight.kbit_absmax"));
  CHECK(shard_of.at("model.layers.1.mlp.down_proj.weight.kbit_packed") ==
        shard_of.at("model.layers.1.mlp.down_proj.weight.kbit_codebook"));
  const auto idx = shard_index(p);
  CHECK(idx["weight_map"].size() == shard_of.size());
  CHECK(idx["weight_map"]["lm_head.weight"] == shard_of.at("lm_head.weight"));
  CHECK(idx["metadata"]["total_size"] == p.out_bytes);
}

TEST_CASE("plan config json gains quantization_config and metadata strings") {
  PlanOptions o;
  o.bits_for = {parse_bits_override("down_proj=5")};
  const Plan p = make_plan(llama(1), {}, o);
  nlohmann::ordered_json src = {{"model_type", "llama"}, {"hidden_size", 256}};
  const auto c = quantized_config(src, p, o);
  CHECK(c["model_type"] == "llama");
  const auto& q = c["quantization_config"];
  kbit::test::check_default_quantization_config(q);
  CHECK(q["modules_not_converted"] == nlohmann::ordered_json({"model.embed_tokens", "lm_head"}));
  CHECK(q["bits_overrides"][0]["pattern"] == "down_proj");
  CHECK(q["bits_overrides"][0]["bits"] == 5);
  const auto md = nlohmann::json::parse(kbit_metadata_value(find(p, "model.layers.0.mlp.down_proj.weight"), "nf", -7, Encoder::search));
  CHECK(md == nlohmann::json({{"bits", 5}, {"shape", {256, 512}}, {"dtype", "BF16"}, {"codebook", "nf"},
                              {"scale_exp", -7}, {"encoder", "search"}}));
}

TEST_CASE("plan parse_size units") {
  CHECK(parse_size("5GB") == 5'000'000'000ull);
  CHECK(parse_size("500MB") == 500'000'000ull);
  CHECK(parse_size("2GiB") == 2ull << 30);
  CHECK(parse_size("1.5kb") == 1500);
  CHECK(parse_size("123") == 123);
  CHECK_THROWS_AS(parse_size("5 parsecs"), Error);
  CHECK_THROWS_AS(parse_size("0"), Error);
  CHECK(format_bytes(1234567) == "1.23 MB");
}
