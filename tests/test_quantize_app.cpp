// kbit-quantize's engine end to end on small checkpoints written here (lib/kbit/quantize_run.h,
// quantize_check.h): output bytes equal quantize_tensor of the source, expert groups share one
// scale, copied tensors are byte-identical, config.json and the index, refusal to overwrite,
// --dry-run writes nothing, an injected failure leaves nothing under OUT and --resume finishes
// the job with the same bytes, the check catches a flipped byte, fused experts, fp8 sources.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "kbit/error.h"
#include "kbit/fp8.h"
#include "kbit/quantize_check.h"
#include "kbit/quantize_run.h"
#include "kbit/rng.h"
#include "kbit/safetensors.h"
#include "temp_dir.h"
#include "kbit_config_checks.h"

using namespace kbit;
namespace fs = std::filesystem;

namespace {

using TempDir = kbit::test::TempDir;

struct FixTensor {
  std::string name, dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

FixTensor normal(Rng& rng, const std::string& name, std::vector<int64_t> shape, const std::string& dtype = "BF16",
                 double stddev = 0.02) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  FixTensor t{name, dtype, shape, {}};
  t.bytes.resize(size_t(n) * (dtype == "F32" ? 4 : 2));
  for (int64_t i = 0; i < n; ++i) {
    const float v = float(rng.normal() * stddev);
    if (dtype == "F32") std::memcpy(&t.bytes[size_t(i) * 4], &v, 4);
    else {
      const uint16_t h = dtype == "BF16" ? f32_to_bf16(v) : f32_to_f16(v);
      std::memcpy(&t.bytes[size_t(i) * 2], &h, 2);
    }
  }
  return t;
}

void write_st(const fs::path& path, const std::vector<FixTensor>& ts) {
  std::vector<st::Writer::Entry> e;
  for (const auto& t : ts) e.push_back({t.name, t.dtype, t.shape});
  st::Writer w(path, e);
  for (const auto& t : ts) w.write(t.name, t.bytes.data(), t.bytes.size());
  w.commit();
}

void write_text(const fs::path& p, const std::string& s) { std::ofstream(p) << s; }
std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A Qwen3-MoE-shaped checkpoint in two shards with an index: H = 96 (K % 64 == 32 exercises the
// tiled padding), per-expert tensors, an F32 tensor among BF16 ones, router, norms, lm_head.
std::vector<FixTensor> make_moe(const fs::path& dir, int shards = 2) {
  Rng rng(7);
  const int64_t H = 96, I = 64, E = 4, V = 64;
  std::vector<FixTensor> all = {normal(rng, "model.embed_tokens.weight", {V, H})};
  for (int l = 0; l < 2; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    all.push_back(normal(rng, p + "input_layernorm.weight", {H}));
    all.push_back(normal(rng, p + "self_attn.q_proj.weight", {H, H}));
    all.push_back(normal(rng, p + "self_attn.k_proj.weight", {32, H}, "F32"));
    all.push_back(normal(rng, p + "self_attn.o_proj.weight", {H, H}, "F16"));
    all.push_back(normal(rng, p + "mlp.gate.weight", {E, H}));
    for (int e = 0; e < E; ++e) {
      const std::string x = p + "mlp.experts." + std::to_string(e) + ".";
      // Experts of one projection with different ranges: the shared scale must follow the largest.
      all.push_back(normal(rng, x + "gate_proj.weight", {I, H}, "BF16", 0.01 * (e + 1)));
      all.push_back(normal(rng, x + "up_proj.weight", {I, H}));
      all.push_back(normal(rng, x + "down_proj.weight", {H, I}));
    }
  }
  all.push_back(normal(rng, "model.norm.weight", {H}));
  all.push_back(normal(rng, "lm_head.weight", {V, H}));
  fs::create_directories(dir);
  if (shards == 1) {
    write_st(dir / "model.safetensors", all);
  } else {
    nlohmann::json idx;
    idx["metadata"] = {{"total_size", 0}};
    const size_t half = all.size() / 2;
    const std::vector<FixTensor> a(all.begin(), all.begin() + long(half)), b(all.begin() + long(half), all.end());
    write_st(dir / "model-00001-of-00002.safetensors", a);
    write_st(dir / "model-00002-of-00002.safetensors", b);
    for (const auto& t : a) idx["weight_map"][t.name] = "model-00001-of-00002.safetensors";
    for (const auto& t : b) idx["weight_map"][t.name] = "model-00002-of-00002.safetensors";
    write_text(dir / "model.safetensors.index.json", idx.dump(2));
  }
  write_text(dir / "config.json", R"({"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
    "hidden_size": 96, "num_hidden_layers": 2, "num_experts": 4, "torch_dtype": "bfloat16"})");
  write_text(dir / "tokenizer.json", R"({"version": "1.0"})");
  fs::create_directories(dir / "1_Pooling");
  write_text(dir / "1_Pooling/config.json", "{}");
  write_text(dir / "pytorch_model.bin", "not copied");
  return all;
}

RunOptions options(const fs::path& src, const fs::path& out) {
  RunOptions o;
  o.source = src;
  o.output = out;
  o.threads = 2;
  return o;
}

TensorView view_of(const FixTensor& t) {
  TensorView v;
  v.data = t.bytes.data();
  v.dtype = t.dtype == "F32" ? DType::F32 : t.dtype == "F16" ? DType::F16 : DType::BF16;
  v.fused = t.shape.size() == 3;
  v.E = v.fused ? t.shape[0] : 1;
  v.N = t.shape[t.shape.size() - 2];
  v.K = t.shape.back();
  return v;
}

template <class T>
std::vector<T> tensor_data(const st::Checkpoint& c, const std::string& name) {
  const auto loc = c.find(name);
  REQUIRE_MESSAGE(loc.file, "missing tensor " << name);
  const auto b = loc.file->bytes(*loc.info);
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

nlohmann::json kbit_meta(const st::Checkpoint& c, const std::string& x) {
  const auto loc = c.find(x + ".kbit_packed");
  REQUIRE(loc.file);
  return nlohmann::json::parse(loc.file->header().metadata.at("kbit." + x));
}

// Every regular file under a and b, byte for byte.
void check_same_tree(const fs::path& a, const fs::path& b) {
  size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(a)) {
    if (!e.is_regular_file()) continue;
    const fs::path rel = fs::relative(e.path(), a);
    INFO("file " << rel.string());
    REQUIRE(fs::exists(b / rel));
    CHECK(read_text(e.path()) == read_text(b / rel));
    ++n;
  }
  size_t m = 0;
  for (const auto& e : fs::recursive_directory_iterator(b)) m += e.is_regular_file();
  CHECK(n == m);
}

}  // namespace

TEST_CASE("quantize app output bytes equal quantize_tensor of the source") {
  TempDir tmp;
  const auto src = make_moe(tmp.path / "src");
  const RunResult r = run_quantize(options(tmp.path / "src", tmp.path / "out"));
  CHECK(r.plan.count(Action::quantize) == 2 * (3 + 12));
  const st::Checkpoint out = st::Checkpoint::open(tmp.path / "out");
  const Codebook nf4 = builtin_codebook("nf", 4);
  std::map<std::string, const FixTensor*> by_name;
  for (const auto& t : src) by_name[t.name] = &t;

  // A dense tensor: its own scale.
  for (const char* name : {"model.layers.0.self_attn.q_proj.weight", "model.layers.1.self_attn.k_proj.weight",
                           "model.layers.1.self_attn.o_proj.weight"}) {
    INFO(name);
    QuantizeOptions qo;
    qo.threads = 1;
    const QuantizedTensor q = quantize_tensor(name, view_of(*by_name.at(name)), nf4, qo);
    CHECK(tensor_data<uint32_t>(out, std::string(name) + ".kbit_packed") == q.packed);
    CHECK(tensor_data<uint8_t>(out, std::string(name) + ".kbit_absmax") == q.absmax);
    CHECK(tensor_data<float>(out, std::string(name) + ".kbit_codebook") == q.codebook_stored);
    const auto md = kbit_meta(out, name);
    CHECK(md["scale_exp"] == q.scale_exp);
    CHECK(md["bits"] == 4);
    CHECK(md["dtype"] == by_name.at(name)->dtype);
    CHECK(md["encoder"] == "search");
    CHECK(md["codebook"] == "nf");
    CHECK(md["shape"] == nlohmann::json(by_name.at(name)->shape));
  }
  // An expert group: s from the max amax over all four experts (FORMAT §6), identical in each.
  for (int l = 0; l < 2; ++l) {
    float amax = 0;
    std::vector<std::string> names;
    for (int e = 0; e < 4; ++e) {
      names.push_back("model.layers." + std::to_string(l) + ".mlp.experts." + std::to_string(e) + ".gate_proj.weight");
      amax = std::max(amax, tensor_absmax(names.back(), view_of(*by_name.at(names.back())), 1));
    }
    const int s = choose_scale_exp(amax);
    const int own = choose_scale_exp(tensor_absmax(names[0], view_of(*by_name.at(names[0])), 1));
    CHECK(own != s);  // the fixture makes expert 0 smaller: the group scale is not its own
    for (const auto& name : names) {
      INFO(name);
      QuantizeOptions qo;
      qo.scale_exp = s;
      const QuantizedTensor q = quantize_tensor(name, view_of(*by_name.at(name)), nf4, qo);
      CHECK(kbit_meta(out, name)["scale_exp"] == s);
      CHECK(tensor_data<uint32_t>(out, name + ".kbit_packed") == q.packed);
      CHECK(tensor_data<uint8_t>(out, name + ".kbit_absmax") == q.absmax);
      CHECK(tensor_data<float>(out, name + ".kbit_codebook") == q.codebook_stored);
    }
  }
  // Errors were measured and are sane for k = 4 on Gaussian weights (~21 dB).
  REQUIRE(r.quantized.size() == 30);
  for (const auto& t : r.quantized) {
    INFO(t.name);
    CHECK(t.err.sqnr_db() > 18.0);
    CHECK(t.err.sqnr_db() < 25.0);
    CHECK(t.err.max_abs_err > 0);
  }
}

TEST_CASE("quantize app copies untouched tensors byte-identical and writes config and index") {
  TempDir tmp;
  const auto src = make_moe(tmp.path / "src");
  RunOptions o = options(tmp.path / "src", tmp.path / "out");
  o.plan.max_shard_bytes = 40'000;
  o.plan.bits_for = {parse_bits_override("down_proj=5")};
  const RunResult r = run_quantize(o);
  const st::Checkpoint out = st::Checkpoint::open(tmp.path / "out");
  CHECK(out.sharded());
  CHECK(out.shards().size() == r.plan.shards.size());
  CHECK(r.plan.shards.size() > 2);
  size_t copied = 0;
  for (const auto& t : src) {
    if (out.find(t.name).file == nullptr) continue;
    INFO(t.name);
    const auto loc = out.find(t.name);
    CHECK(loc.info->dtype == t.dtype);
    CHECK(loc.info->shape == t.shape);
    CHECK(tensor_data<uint8_t>(out, t.name) == t.bytes);
    ++copied;
  }
  CHECK(copied == 7);  // embed, 2 x (norm, router), final norm, lm_head
  CHECK(out.find("model.layers.0.self_attn.q_proj.weight").file == nullptr);
  CHECK(kbit_meta(out, "model.layers.1.mlp.experts.2.down_proj.weight")["bits"] == 5);
  CHECK(tensor_data<float>(out, "model.layers.1.mlp.experts.2.down_proj.weight.kbit_codebook").size() == 32);
  for (const auto& f : out.shards()) {
    CHECK(f.header().metadata.at("format") == "pt");
    CHECK(f.header().metadata.at("kbit.version") == "1");
    for (const auto& t : f.tensors())  // every tensor aligned to its element size
      CHECK((f.header().data_start + t.begin) % uint64_t(std::max(1, st::dtype_bits(t.dtype) / 8)) == 0);
  }
  const auto config = nlohmann::json::parse(read_text(tmp.path / "out/config.json"));
  CHECK(config["model_type"] == "qwen3_moe");
  CHECK(config["num_experts"] == 4);
  const auto& q = config["quantization_config"];
  kbit::test::check_default_quantization_config(q);
  CHECK(q["bits_overrides"] == nlohmann::json::parse(R"([{"pattern": "down_proj", "bits": 5}])"));
  CHECK(q["modules_not_converted"] ==
        nlohmann::json({"model.embed_tokens", "model.layers.0.mlp.gate", "model.layers.1.mlp.gate", "lm_head"}));
  const auto idx = nlohmann::json::parse(read_text(tmp.path / "out/model.safetensors.index.json"));
  size_t listed = 0;
  for (const auto& f : out.shards()) listed += f.tensors().size();
  CHECK(idx["weight_map"].size() == listed);
  CHECK(read_text(tmp.path / "out/tokenizer.json") == read_text(tmp.path / "src/tokenizer.json"));
  CHECK(fs::exists(tmp.path / "out/1_Pooling/config.json"));
  CHECK_FALSE(fs::exists(tmp.path / "out/pytorch_model.bin"));
  CHECK_FALSE(fs::exists(tmp.path / "out/model-00001-of-00002.safetensors"));
  CHECK_FALSE(fs::exists(tmp.path / "out/job.json"));
  CHECK_FALSE(fs::exists(partial_dir(tmp.path / "out")));
}

TEST_CASE("quantize app refuses to overwrite and dry run writes nothing") {
  TempDir tmp;
  make_moe(tmp.path / "src", 1);
  RunOptions o = options(tmp.path / "src", tmp.path / "out");
  o.dry_run = true;
  const RunResult dry = run_quantize(o);
  CHECK(dry.plan.count(Action::quantize) == 30);
  CHECK_FALSE(fs::exists(tmp.path / "out"));
  CHECK_FALSE(fs::exists(partial_dir(tmp.path / "out")));
  CHECK(summary_json(dry, o)["to_quantize"].size() == 30);

  o.dry_run = false;
  run_quantize(o);
  const std::string before = read_text(tmp.path / "out/model.safetensors");
  CHECK_THROWS_WITH_AS(run_quantize(o), doctest::Contains("--overwrite"), UsageError);
  o.plan.bits = 3;
  CHECK_THROWS_AS(run_quantize(o), UsageError);
  CHECK(read_text(tmp.path / "out/model.safetensors") == before);
  o.overwrite = true;
  run_quantize(o);
  CHECK(read_text(tmp.path / "out/model.safetensors") != before);
  CHECK(nlohmann::json::parse(read_text(tmp.path / "out/config.json"))["quantization_config"]["bits"] == 3);
  CHECK_FALSE(fs::exists(tmp.path / "out.kbit-old"));
  // The source directory itself is refused as output.
  RunOptions same = options(tmp.path / "src", tmp.path / "src");
  same.overwrite = true;
  CHECK_THROWS_AS(run_quantize(same), UsageError);
}

TEST_CASE("quantize app injected failure leaves no complete output and resume finishes it") {
  TempDir tmp;
  make_moe(tmp.path / "src");
  RunOptions fresh = options(tmp.path / "src", tmp.path / "fresh");
  fresh.plan.max_shard_bytes = 40'000;
  run_quantize(fresh);

  RunOptions o = options(tmp.path / "src", tmp.path / "out");
  o.plan.max_shard_bytes = 40'000;
  o.fail_after = 40;  // several shards in
  CHECK_THROWS_WITH_AS(run_quantize(o), doctest::Contains("injected failure"), IoError);
  CHECK_FALSE(fs::exists(tmp.path / "out"));
  const fs::path partial = partial_dir(tmp.path / "out");
  REQUIRE(fs::exists(partial / "job.json"));
  CHECK_FALSE(fs::exists(partial / "config.json"));
  CHECK_FALSE(fs::exists(partial / "model.safetensors.index.json"));
  for (const auto& e : fs::directory_iterator(partial))  // the writer removed its temporary
    CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);

  o.fail_after = -1;
  CHECK_THROWS_WITH_AS(run_quantize(o), doctest::Contains("--resume"), UsageError);
  o.resume = true;
  const RunResult r = run_quantize(o);
  CHECK_FALSE(r.shards_resumed.empty());
  CHECK(r.shards_resumed.size() < r.plan.shards.size());
  CHECK_FALSE(fs::exists(partial));
  check_same_tree(tmp.path / "fresh", tmp.path / "out");
  // --resume on a finished output does nothing.
  CHECK(run_quantize(o).already_complete);
}

TEST_CASE("quantize app resume rewrites a damaged finished shard and refuses changed options") {
  TempDir tmp;
  make_moe(tmp.path / "src");
  RunOptions o = options(tmp.path / "src", tmp.path / "out");
  o.plan.max_shard_bytes = 40'000;
  o.fail_after = 40;
  CHECK_THROWS_AS(run_quantize(o), IoError);
  const fs::path partial = partial_dir(tmp.path / "out");
  fs::path first;
  for (const auto& e : fs::directory_iterator(partial))
    if (e.path().extension() == ".safetensors" && (first.empty() || e.path() < first)) first = e.path();
  REQUIRE_FALSE(first.empty());
  {  // flip one data byte near the end of the finished shard
    std::fstream f(first, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-10, std::ios::end);
    char c;
    f.read(&c, 1);
    c = char(c ^ 0x01);
    f.seekp(-10, std::ios::end);
    f.write(&c, 1);
  }
  o.fail_after = -1;
  o.resume = true;
  RunOptions changed = o;
  changed.plan.bits = 3;
  CHECK_THROWS_WITH_AS(run_quantize(changed), doctest::Contains("options.bits"), UsageError);
  const RunResult r = run_quantize(o);
  bool warned = false;
  for (const auto& w : r.warnings) warned = warned || w.find("resume: " + first.filename().string() + " failed its check") == 0;
  CHECK(warned);
  const CheckResult c = check_output({tmp.path / "out", tmp.path / "src", std::nullopt, true, 2});
  CHECK(c.ok());
}

TEST_CASE("quantize app check passes and catches a flipped byte in packed and in a copy") {
  TempDir tmp;
  make_moe(tmp.path / "src", 1);
  run_quantize(options(tmp.path / "src", tmp.path / "out"));
  CheckOptions co{tmp.path / "out", tmp.path / "src", std::nullopt, true, 2};
  CheckResult c = check_output(co);
  for (const auto& p : c.problems) MESSAGE(p);
  REQUIRE(c.ok());
  CHECK(c.tensors.size() == 30);
  CHECK(c.copied_identical == c.copied_checked);
  for (const auto& t : c.tensors) CHECK(t.reencoded_identical);
  CHECK(check_json(c, co)["pass"] == true);

  const fs::path shard = tmp.path / "out/model.safetensors";
  auto flip = [&](const std::string& tensor, uint64_t at, uint8_t mask) {
    const st::File f = st::File::open(shard);
    const uint64_t off = f.header().data_start + f.find(tensor)->begin + at;
    std::fstream io(shard, std::ios::in | std::ios::out | std::ios::binary);
    io.seekg(std::streamoff(off));
    char ch;
    io.read(&ch, 1);
    ch = char(ch ^ mask);
    io.seekp(std::streamoff(off));
    io.write(&ch, 1);
  };
  const std::string x = "model.layers.1.mlp.experts.3.down_proj.weight";
  flip(x + ".kbit_packed", 77, 0x01);  // one bit of one index
  c = check_output(co);
  CHECK_FALSE(c.ok());
  REQUIRE(c.problems.size() == 1);
  CHECK(c.problems[0].find(x) != std::string::npos);
  CHECK(c.problems[0].find("packed words differ") != std::string::npos);
  // Without the source, the structure alone cannot see it (documented).
  CHECK(check_output({tmp.path / "out", std::nullopt, std::nullopt, true, 2}).ok());
  flip(x + ".kbit_packed", 77, 0x01);  // undo
  CHECK(check_output(co).ok());

  flip("model.norm.weight", 3, 0x80);
  c = check_output(co);
  REQUIRE(c.problems.size() == 1);
  CHECK(c.problems[0].find("model.norm.weight: copied tensor differs") == 0);
  flip("model.norm.weight", 3, 0x80);

  flip(x + ".kbit_codebook", 0, 0x01);  // the codebook is no longer nf * 2^s
  c = check_output({tmp.path / "out", std::nullopt, std::nullopt, true, 2});
  CHECK_FALSE(c.ok());
  flip(x + ".kbit_codebook", 0, 0x01);

  // A tight threshold fails every tensor by NMSE (and names it).
  co.max_nmse = 1e-6;
  c = check_output(co);
  CHECK(c.problems.size() == 30);
  CHECK(c.problems[0].find("NMSE") != std::string::npos);
}

TEST_CASE("quantize app fused 3-D experts and a block-scaled fp8 source") {
  TempDir tmp;
  Rng rng(3);
  const int64_t E = 3, H = 128, I = 64;
  std::vector<FixTensor> ts = {normal(rng, "model.layers.0.mlp.experts.gate_up_proj", {E, 2 * I, H}),
                               normal(rng, "model.layers.0.mlp.experts.down_proj", {E, H, I}),
                               normal(rng, "model.layers.0.mlp.gate.weight", {E, H})};
  // fp8 q_proj [H, H] with a 128x128 block scale of 2^-6: the values dequantize to x * 2^-6.
  FixTensor q8{"model.layers.0.self_attn.q_proj.weight", "F8_E4M3", {H, H}, std::vector<uint8_t>(size_t(H * H))};
  for (auto& b : q8.bytes) {  // the fp8 code nearest to a N(0, 1) sample, as real fp8 weights look
    const float x = float(rng.normal());
    int best = 0;
    for (int c = 0; c < 256; ++c)
      if ((c & 0x7f) != 0x7f && std::fabs(fp8_e4m3_to_f32(uint8_t(c)) - x) < std::fabs(fp8_e4m3_to_f32(uint8_t(best)) - x)) best = c;
    b = uint8_t(best);
  }
  FixTensor s8{"model.layers.0.self_attn.q_proj.weight_scale_inv", "F32", {1, 1}, std::vector<uint8_t>(4)};
  const float scale = 0x1p-6f;
  std::memcpy(s8.bytes.data(), &scale, 4);
  ts.push_back(q8);
  ts.push_back(s8);
  fs::create_directories(tmp.path / "src");
  write_st(tmp.path / "src/model.safetensors", ts);
  write_text(tmp.path / "src/config.json", R"({"model_type": "qwen3_moe", "hidden_size": 128, "num_hidden_layers": 1,
    "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}})");
  run_quantize(options(tmp.path / "src", tmp.path / "out"));
  const st::Checkpoint out = st::Checkpoint::open(tmp.path / "out");
  const std::string gu = "model.layers.0.mlp.experts.gate_up_proj";
  CHECK(out.find(gu + ".kbit_packed").info->shape == std::vector<int64_t>{E, 2, 2 * I, 2, 4});
  CHECK(out.find(gu + ".kbit_absmax").info->shape == std::vector<int64_t>{E, 2, 2 * I, 2});
  CHECK(kbit_meta(out, gu)["shape"] == nlohmann::json({E, 2 * I, H}));
  const QuantizedTensor q = quantize_tensor(gu, view_of(ts[0]), builtin_codebook("nf", 4));
  CHECK(tensor_data<uint32_t>(out, gu + ".kbit_packed") == q.packed);
  CHECK(tensor_data<uint8_t>(out, gu + ".kbit_absmax") == q.absmax);
  CHECK(kbit_meta(out, "model.layers.0.self_attn.q_proj.weight")["dtype"] == "F8_E4M3");
  CHECK(out.find("model.layers.0.self_attn.q_proj.weight_scale_inv").file == nullptr);
  const auto config = nlohmann::json::parse(read_text(tmp.path / "out/config.json"));
  CHECK(config["quantization_config"]["quant_method"] == "kbit");
  CHECK(config["quantization_config_source"]["quant_method"] == "fp8");
  const CheckResult c = check_output({tmp.path / "out", tmp.path / "src", std::nullopt, true, 2});
  for (const auto& p : c.problems) MESSAGE(p);
  CHECK(c.ok());
}

TEST_CASE("quantize app input errors name the tensor") {
  TempDir tmp;
  Rng rng(5);
  FixTensor bad = normal(rng, "model.layers.0.mlp.down_proj.weight", {4, 64});
  const uint16_t nan = 0x7fc0;
  std::memcpy(&bad.bytes[2 * 70], &nan, 2);
  fs::create_directories(tmp.path / "src");
  write_st(tmp.path / "src/model.safetensors", {bad});
  CHECK_THROWS_WITH_AS(run_quantize(options(tmp.path / "src", tmp.path / "out")),
                       doctest::Contains("model.layers.0.mlp.down_proj.weight"), Error);
  CHECK_FALSE(fs::exists(tmp.path / "out"));
  CHECK_THROWS_WITH_AS(run_quantize(options(tmp.path / "nowhere", tmp.path / "out")), doctest::Contains("does not exist"),
                       Error);
  // bnb cannot encode amax >= 32: an input error naming tensor and block, not silent corruption.
  FixTensor big = normal(rng, "model.layers.0.mlp.up_proj.weight", {2, 64});
  const uint16_t forty = f32_to_bf16(40.0f);
  std::memcpy(&big.bytes[2 * 33], &forty, 2);
  write_st(tmp.path / "src/model.safetensors", {big});
  RunOptions o = options(tmp.path / "src", tmp.path / "out2");
  o.plan.encoder = Encoder::bnb;
  CHECK_THROWS_WITH_AS(run_quantize(o), doctest::Contains("model.layers.0.mlp.up_proj.weight"), Error);
  CHECK_FALSE(fs::exists(tmp.path / "out2"));
}
