// Verification cases: one (shape, M, k, dtype, kernel) each, named
//   dense/<label>/N<N>.K<K>/M<M>/k<k>/<f16|bf16>/<v0|gemv|mma|dequant_cublas|automatic>
//   moe/<label>/E<E>.N<N>.K<K>.top<t>.<routing>/T<tokens>/k<k>/<f16|bf16>/<v0|grouped_gemv|grouped_mma|automatic>
//   dequant/<label>/E<E>.N<N>.K<K>/k<k>/<f16|bf16|f32>/<v0|fast>
// A name holds everything needed to rebuild the case (no catalogue lookup), so a name plus the
// master seed reproduces it. Seeds: inputs = derive_seed(master, group) where group is the name
// without its kernel (all kernels of a group see the same inputs); weights = derive_seed(master,
// weight_key) with weight_key = "w/<label>/E.N.K/k" (shared by the dense/MoE and dequantize cases
// of one shape and k, so huge weights are generated once per k).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "catalogue.h"
#include "compare.h"
#include "tolerance.h"

namespace kbit::verify {

enum class Family { dense, moe, dequant };
const char* family_name(Family f);

const std::vector<std::string>& family_kernels(Family f);

struct CaseSpec {
  Family family = Family::dense;
  std::string label;  // shape label, e.g. "llama-3-8b.mlp.down"
  int64_t E = 1, N = 0, K = 0;
  int top_k = 0;      // MoE
  Routing routing = Routing::realistic;
  int64_t M = 0;      // dense: rows of A; MoE: tokens (routed rows = routing of tokens x top_k)
  int bits = 4;
  Precision dtype = Precision::f16;
  std::string kernel;

  std::string dims() const;
  std::string group() const;
  std::string name() const;
  std::string weight_key() const;
  uint64_t input_seed(uint64_t master) const { return derive_seed(master, group()); }
  uint64_t weight_seed(uint64_t master) const { return derive_seed(master, weight_key()); }
  bool operator==(const CaseSpec&) const = default;
};

// Inverse of name(); throws kbit::Error saying which part is malformed.
CaseSpec parse_case_name(const std::string& name);

struct PlanOptions {
  bool full = false;
  uint64_t seed = 1;
  std::string filter;                // ECMAScript regex searched in the case name; empty: all
  std::vector<std::string> kernels;  // "mma", "moe.v0", "dequant", ...; empty: all
  std::vector<int64_t> m;            // dense M and MoE tokens instead of m_list / tokens_list; empty: those
};

// --m's list: comma-separated integers (M >= 0, at most 2^20), each once, no spaces, in the order given; throws
// kbit::Error naming the bad item (an empty one too: a leading, doubled or trailing comma).
std::vector<int64_t> parse_m_list(const std::string& text);

std::vector<int64_t> m_list(bool full);       // dense M
std::vector<int64_t> tokens_list(bool full);  // MoE tokens
// The (k, dtype) combinations, in rotation order.
struct Combo {
  int bits;
  Precision dtype;
};
const std::vector<Combo>& combos();

// Checks --kernels tokens; throws kbit::Error naming an unknown one.
void validate_kernel_tokens(const std::vector<std::string>& tokens);
bool kernel_selected(const std::vector<std::string>& tokens, Family f, const std::string& kernel);

// The sweep: quick runs every shape (block GEMMs, adversarial, count_quick random) at every M of
// m_list(false) with (k, dtype) rotating over the 8 combos along M, so each shape sees all of them;
// full runs the whole catalogue with every combo up to M = 16 (tokens 8) and rotates above.
std::vector<CaseSpec> plan_cases(const Catalogue& cat, const PlanOptions& opt);

// Why a planned case is not run, "" when it runs. --no-cublas (no cuBLAS kernel may launch, so
// compute-sanitizer can instrument our kernels alone) skips dense dequant_cublas: it is cuBLAS.
// The plan keeps skipped cases, so --shard I/N splits the same list with or without the flag.
std::string skip_reason(const CaseSpec& c, bool no_cublas);

// --shard I/N keeps every N-th case from I; then --range A:B keeps positions [A, B) of what is
// left (B may pass the end; "A:" means to the end), so a long sanitizer run can resume where a
// time limit cut it. Empty strings select everything. Throws kbit::Error on a malformed spec.
std::vector<CaseSpec> select_cases(std::vector<CaseSpec> cases, const std::string& shard, const std::string& range);

// Repro file (--repro-dir) and its reader for --case.
struct CaseOutcome {
  CaseSpec spec;
  std::string status;   // "pass", "fail", "n/a", "skipped" (skip_reason)
  std::string message;  // status_message() of the kernel, or why it failed
  std::string chosen;   // automatic: the kernel dispatch chose
  std::vector<CheckResult> checks;
  double ms = 0;        // wall time of the case (host, including references)
};
nlohmann::json outcome_json(const CaseOutcome& o, uint64_t master_seed);
std::string repro_filename(const CaseSpec& c);  // the name with '/' -> '__', ".json"
struct Repro {
  CaseSpec spec;
  uint64_t master_seed = 0;
};
Repro read_repro(const std::string& path);  // throws kbit::Error naming the file and field

}  // namespace kbit::verify
