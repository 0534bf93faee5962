// The one exception type of the library. Messages name what was wrong, where (tensor, block,
// file) and what to do; apps turn it into a clear message and a documented exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace kbit {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kbit
