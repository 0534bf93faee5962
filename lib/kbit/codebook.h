// Codebooks (FORMAT §2): 2^k ascending fp32 values. Built-ins "nf" (exact bit patterns from
// format.h) and "bnf" (Lloyd-Max levels, notes/upstream-kbit.md §1), or a user file.
#pragma once

#include <string>
#include <vector>

namespace kbit {

struct Codebook {
  std::string name;           // "nf", "bnf", or "file:<path>"
  int bits = 0;               // k
  std::vector<float> values;  // 2^k values, ascending (unscaled; cb_stored = values * 2^s)
};

// "nf" or "bnf" for k = 2..5. Throws kbit::Error naming the unknown name or bad k.
Codebook builtin_codebook(const std::string& name, int k);

// A user codebook: a text file of 2^k numbers (whitespace or comma separated, '#' comments).
Codebook load_codebook_file(const std::string& path, int k);

// "nf"/"bnf" or a path to a file. The one entry point the tools use.
Codebook resolve_codebook(const std::string& spec, int k);

// Throws unless the values are 2^k finite floats in non-decreasing order.
void validate_codebook(const Codebook& cb);

}  // namespace kbit
