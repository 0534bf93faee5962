// kbit::testdata (kbit-make-testdata): every family writes a checkpoint our reader accepts with
// the HF names and orientations documented in testdata.h, output is deterministic and
// shard-independent, and data/tiny-qwen3-moe is exactly what the generator writes today.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "kbit/dtype.h"
#include "kbit/error.h"
#include "kbit/safetensors.h"
#include "kbit/testdata.h"

using namespace kbit;
namespace fs = std::filesystem;

namespace {

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    static int counter = 0;
    path = fs::temp_directory_path() / ("kbit-test-td-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::vector<int64_t> shape_of(const st::Checkpoint& ck, const std::string& name) {
  const auto at = ck.find(name);
  REQUIRE_MESSAGE(at.info, "missing tensor " << name);
  return at.info->shape;
}

}  // namespace

TEST_CASE("testdata: every family writes a checkpoint with its HF names") {
  ScratchDir dir;
  for (testdata::Family f : testdata::all_families()) {
    CAPTURE(std::string(testdata::family_name(f)));
    testdata::Options opt;
    opt.family = f;
    const testdata::ModelSpec spec = testdata::model_spec(opt);
    const fs::path out = dir.path / testdata::family_name(f);
    const testdata::Summary sum = testdata::write_checkpoint(out, opt);
    CHECK(sum.files == 1);
    CHECK(sum.tensors == int(spec.tensors.size()));
    CHECK(sum.tensor_bytes == spec.tensor_bytes());
    for (const char* file : {"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json"})
      CHECK(fs::is_regular_file(out / file));
    const st::Checkpoint ck = st::Checkpoint::open(out);
    CHECK(!ck.sharded());
    REQUIRE(ck.names().size() == spec.tensors.size());
    for (const testdata::TensorSpec& t : spec.tensors) {
      const auto at = ck.find(t.name);
      REQUIRE_MESSAGE(at.info, t.name);
      CHECK(at.info->dtype == t.dtype);
      CHECK(at.info->shape == t.shape);
      // The writer sorts by alignment: every tensor starts aligned to its element size.
      CHECK((ck.shards()[0].header().data_start + at.info->begin) % uint64_t(st::dtype_bits(t.dtype) / 8) == 0);
    }
    const std::string config = slurp(out / "config.json");
    CHECK(config.find("\"architectures\"") != std::string::npos);
    CHECK(config.find("\"torch_dtype\": \"bfloat16\"") != std::string::npos);
    CHECK(shape_of(ck, "model.embed_tokens.weight") == std::vector<int64_t>{512, 128});
    CHECK(bool(ck.find("lm_head.weight").info) == (f != testdata::Family::qwen3_tied));
    CHECK((config.find("\"tie_word_embeddings\": true") != std::string::npos) == (f == testdata::Family::qwen3_tied));
  }
  const st::Checkpoint qwen = st::Checkpoint::open(dir.path / "qwen3-moe");
  CHECK(shape_of(qwen, "model.layers.1.mlp.experts.7.down_proj.weight") == std::vector<int64_t>{128, 64});
  CHECK(shape_of(qwen, "model.layers.1.mlp.gate.weight") == std::vector<int64_t>{8, 128});
  CHECK(shape_of(qwen, "model.layers.0.self_attn.q_norm.weight") == std::vector<int64_t>{32});
  const st::Checkpoint fused = st::Checkpoint::open(dir.path / "qwen3-moe-fused");
  CHECK(shape_of(fused, "model.layers.0.mlp.experts.gate_up_proj") == std::vector<int64_t>{8, 128, 128});  // [E, 2I, H]
  CHECK(shape_of(fused, "model.layers.0.mlp.experts.down_proj") == std::vector<int64_t>{8, 128, 64});       // [E, H, I]
  CHECK(!fused.find("model.layers.0.mlp.experts.0.gate_proj.weight").info);
  const st::Checkpoint oss = st::Checkpoint::open(dir.path / "gpt-oss");
  CHECK(shape_of(oss, "model.layers.0.mlp.experts.gate_up_proj") == std::vector<int64_t>{4, 128, 128});  // [E, H, 2I]
  CHECK(shape_of(oss, "model.layers.0.mlp.experts.down_proj") == std::vector<int64_t>{4, 64, 128});      // [E, I, H]
  CHECK(shape_of(oss, "model.layers.1.self_attn.sinks") == std::vector<int64_t>{4});
  const st::Checkpoint glm = st::Checkpoint::open(dir.path / "glm4-moe");
  CHECK(shape_of(glm, "model.layers.0.mlp.gate_proj.weight") == std::vector<int64_t>{256, 128});  // dense layer
  CHECK(!glm.find("model.layers.0.mlp.gate.weight").info);
  CHECK(glm.find("model.layers.1.mlp.gate.e_score_correction_bias").info->dtype == "F32");
  CHECK(shape_of(glm, "model.layers.2.mlp.shared_experts.down_proj.weight") == std::vector<int64_t>{128, 64});
  CHECK(shape_of(glm, "model.layers.1.self_attn.q_proj.bias") == std::vector<int64_t>{128});
  CHECK(shape_of(glm, "model.layers.3.eh_proj.weight") == std::vector<int64_t>{128, 256});  // the MTP layer
  const std::string glm_config = slurp(dir.path / "glm4-moe" / "config.json");
  CHECK(glm_config.find("\"first_k_dense_replace\": 1") != std::string::npos);
  CHECK(glm_config.find("\"num_hidden_layers\": 3") != std::string::npos);
}

TEST_CASE("testdata: sharding and threads change files but not tensor bytes") {
  ScratchDir dir;
  testdata::Options one, three;
  one.family = three.family = testdata::Family::glm4_moe;
  one.threads = 1;
  three.shards = 3;
  three.threads = 2;
  testdata::write_checkpoint(dir.path / "one", one);
  const testdata::Summary s3 = testdata::write_checkpoint(dir.path / "three", three);
  CHECK(s3.files == 3);
  const st::Checkpoint a = st::Checkpoint::open(dir.path / "one"), b = st::Checkpoint::open(dir.path / "three");
  CHECK(b.sharded());
  CHECK(b.shards().size() == 3);
  CHECK(fs::is_regular_file(dir.path / "three" / "model-00003-of-00003.safetensors"));
  REQUIRE(a.names().size() == b.names().size());
  for (const std::string& n : a.names()) {
    const auto x = a.find(n), y = b.find(n);
    REQUIRE(y.info);
    const auto bx = x.file->bytes(*x.info), by = y.file->bytes(*y.info);
    REQUIRE(bx.size() == by.size());
    CHECK_MESSAGE(std::memcmp(bx.data(), by.data(), bx.size()) == 0, n);
  }
  CHECK(slurp(dir.path / "one" / "config.json") == slurp(dir.path / "three" / "config.json"));
}

TEST_CASE("testdata: values are seeded normals that any split reproduces") {
  testdata::TensorSpec t{"w", "F32", {300000}, 0.0f, 0.02f, true};
  std::vector<float> whole(300000), parts(300000);
  testdata::fill_values(t, 5, 0, 300000, whole.data());
  testdata::fill_values(t, 5, 0, 70001, parts.data());  // a split inside a chunk
  testdata::fill_values(t, 5, 70001, 300000 - 70001, parts.data() + 70001);
  CHECK(std::memcmp(whole.data(), parts.data(), whole.size() * 4) == 0);
  double sum = 0, sq = 0;
  for (float v : whole) {
    sum += v;
    sq += double(v) * v;
  }
  const double mean = sum / double(whole.size()), sd = std::sqrt(sq / double(whole.size()) - mean * mean);
  CHECK(std::fabs(mean) < 1e-3);
  CHECK(sd > 0.02);  // the outliers widen it a little
  CHECK(sd < 0.023);
  std::vector<float> other(1000);
  testdata::fill_values(t, 6, 0, 1000, other.data());
  CHECK(std::memcmp(whole.data(), other.data(), 4000) != 0);  // the seed matters
  testdata::TensorSpec b = t;
  b.dtype = "BF16";
  std::vector<uint16_t> h(1000);
  testdata::fill_values(b, 5, 0, 1000, h.data());
  for (int i = 0; i < 1000; ++i) CHECK(h[size_t(i)] == f32_to_bf16(whole[size_t(i)]));
}

TEST_CASE("testdata: an existing directory is refused and left alone") {
  ScratchDir dir;
  const fs::path out = dir.path / "m";
  fs::create_directories(out);
  std::ofstream(out / "keep.txt") << "mine";
  testdata::Options opt;
  opt.family = testdata::Family::llama;
  CHECK_THROWS_WITH_AS(testdata::write_checkpoint(out, opt), doctest::Contains("already exists (use --force"), Error);
  CHECK(slurp(out / "keep.txt") == "mine");
  testdata::write_checkpoint(out, opt, true);
  CHECK(!fs::exists(out / "keep.txt"));
  CHECK(st::Checkpoint::open(out).names().size() == 21);
  std::set<std::string> entries;
  for (const auto& e : fs::directory_iterator(dir.path)) entries.insert(e.path().filename().string());
  CHECK(entries == std::set<std::string>{"m"});  // no temporary directory left
  opt.dtype = "Q4";
  CHECK_THROWS_WITH_AS(testdata::write_checkpoint(dir.path / "q", opt), doctest::Contains("BF16, F16 or F32"), Error);
  CHECK(!fs::exists(dir.path / "q"));
}

TEST_CASE("testdata: data/tiny-qwen3-moe is what the generator writes") {
  ScratchDir dir;
  testdata::Options opt;
  opt.family = testdata::Family::qwen3_moe;
  opt.shards = 2;
  testdata::write_checkpoint(dir.path / "tiny", opt);
  const fs::path committed = KBIT_DATA_DIR "/tiny-qwen3-moe";
  std::set<std::string> want, got;
  for (const auto& e : fs::directory_iterator(dir.path / "tiny")) want.insert(e.path().filename().string());
  for (const auto& e : fs::directory_iterator(committed)) got.insert(e.path().filename().string());
  CHECK(got == want);
  for (const std::string& f : want) CHECK_MESSAGE(slurp(committed / f) == slurp(dir.path / "tiny" / f), f);
}
