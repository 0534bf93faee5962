// The shapes catalogue (data/shapes.json, schema in docs/shapes.md): the GEMMs of one transformer
// block per model, adversarial shapes and the recipe for seeded random shapes. One loader for
// kbit-verify, kbit-bench and the tests; every entry is validated against the format's shape
// rules (N >= 1, K >= 32, K % 32 == 0, E >= 1, 1 <= top_k <= E) when it is read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kbit::verify {

// How routed rows are spread over the experts of one MoE projection (routing.h).
enum class Routing { realistic, uniform, empty_edges, one_first, one_last, all_empty };
const char* routing_name(Routing r);
Routing parse_routing(const std::string& s);  // throws kbit::Error listing the valid names

struct GemmShape {
  std::string model;             // "qwen3-coder-next", ..., "adversarial", "random"
  std::string name;              // "attn.q_proj", "mlp.experts.gate_up", "n2049", ...
  int64_t N = 0, K = 0;
  int64_t E = 1;                 // experts; MoE when moe is true (E may be 1 there)
  int top_k = 0;                 // routed experts per token (MoE only)
  bool moe = false;
  bool block = true;             // part of the model's block (false: an alternative layout)
  std::vector<std::string> fused;     // e.g. {"gate", "up"}: N is the sum of the parts
  std::vector<Routing> routings;      // MoE: routings to verify (default: realistic)
  std::string note;

  std::string label() const { return model + "." + name; }
  double weights() const { return double(E) * double(N) * double(K); }
};

struct Model {
  std::string name;
  int64_t hidden = 0;
  std::string source;
  std::vector<GemmShape> gemms;
};

struct RandomRecipe {
  int count_quick = 0, count_full = 0;
  int64_t n_min = 1, n_max = 1;
  int64_t kb_min = 1, kb_max = 1;  // K / 32
  int64_t e_min = 2, e_max = 2;
  int top_k_min = 1, top_k_max = 1;
  double moe_fraction = 0.0;
};

struct Catalogue {
  std::string origin;
  std::vector<Model> models;
  std::vector<GemmShape> adversarial;
  RandomRecipe random;

  // Model GEMMs (in file order) then adversarial shapes.
  std::vector<GemmShape> all_shapes() const;
  const Model* find_model(const std::string& name) const;
};

// Throws kbit::Error naming the file, the entry and the field when anything is missing or invalid.
Catalogue load_catalogue(const std::string& path);
Catalogue parse_catalogue(const std::string& json_text, const std::string& origin);

// Throws kbit::Error naming the shape if it breaks a shape rule.
void validate_shape(const GemmShape& s);

// count random shapes drawn from the recipe; shape i uses Rng(derive_seed(seed, "random.<i>")).
std::vector<GemmShape> random_shapes(const RandomRecipe& r, uint64_t seed, int count);

// A stable 64-bit seed from a master seed and a text key (FNV-1a of the key mixed by splitmix64).
uint64_t derive_seed(uint64_t master, const std::string& key);

}  // namespace kbit::verify
