// A small deterministic random generator (splitmix64) with explicitly defined mappings, so a
// printed seed reproduces the same data on any platform (std:: distributions are not portable).
#pragma once

#include <cmath>
#include <cstdint>

namespace kbit {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1p-53; }               // [0, 1)
  int64_t below(int64_t n) { return static_cast<int64_t>(uniform() * double(n)); }  // [0, n)
  int64_t range(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }  // [lo, hi]
  double normal() {  // Box-Muller
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t state_;
};

}  // namespace kbit
