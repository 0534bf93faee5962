// parallel_for over [0, n) in contiguous chunks on std::threads. The first exception thrown by
// any chunk is rethrown on the calling thread after all threads have joined.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace kbit {

inline int resolve_threads(int requested) {
  if (requested > 0) return requested;
  return std::max(1u, std::thread::hardware_concurrency());
}

// fn(begin, end) is called on disjoint ranges covering [0, n).
template <class Fn>
void parallel_for(int64_t n, int threads, Fn&& fn) {
  const int64_t workers = std::min<int64_t>(resolve_threads(threads), std::max<int64_t>(n, 1));
  if (workers <= 1) {
    fn(int64_t{0}, n);
    return;
  }
  std::exception_ptr error;
  std::mutex error_mutex;
  std::vector<std::thread> pool;
  const int64_t chunk = (n + workers - 1) / workers;
  for (int64_t w = 0; w < workers; ++w) {
    const int64_t begin = w * chunk, end = std::min(n, begin + chunk);
    if (begin >= end) break;
    pool.emplace_back([&, begin, end] {
      try {
        fn(begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    });
  }
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace kbit
