// The format.h functions evaluated on the GPU must equal the host: E4M4 decode of all 256 codes,
// the tiled word/absmax offsets and bit-plane unpacking. Skips (exit 77) without a CUDA device.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "kbit/format.h"

namespace {

__global__ void decode_all(float* out) { out[threadIdx.x] = kbit::e4m4_decode(uint8_t(threadIdx.x)); }
__global__ void decode_bits_all(float* out) { out[threadIdx.x] = kbit::e4m4_decode_bits(uint8_t(threadIdx.x)); }

__global__ void offsets(int64_t N, int64_t kbs, int k, int64_t* words, int64_t* absmax) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= N * kbs) return;
  const int64_t n = i / kbs, kb = i % kbs;
  words[i] = kbit::tiled_word_offset(n, kb, k - 1, N, k);
  absmax[i] = kbit::tiled_absmax_offset(n, kb, N);
}

__global__ void unpack(const uint32_t* w, int k, int* idx) { idx[threadIdx.x] = kbit::unpack_index(w, threadIdx.x, k); }

template <class T>
T* device_copy(const std::vector<T>& h) {
  T* d = nullptr;
  REQUIRE(cudaMalloc(&d, h.size() * sizeof(T)) == cudaSuccess);
  REQUIRE(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
  return d;
}
template <class T>
std::vector<T> host_copy(const T* d, size_t n) {
  std::vector<T> h(n);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
  return h;
}

}  // namespace

// The 256 codes decoded on the GPU by `kernel` (one thread per code), into poisoned memory.
static std::vector<float> decode_on_gpu(void (*kernel)(float*)) {
  std::vector<float> poison(256, -1.0f);
  float* d = device_copy(poison);
  kernel<<<1, 256>>>(d);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const auto got = host_copy(d, 256);
  cudaFree(d);
  return got;
}

TEST_CASE("gpu: e4m4_decode equals the host for all 256 codes") {
  const auto got = decode_on_gpu(decode_all);
  for (int c = 0; c < 256; ++c) REQUIRE(got[c] == kbit::e4m4_decode(uint8_t(c)));
}

TEST_CASE("gpu: e4m4_decode_bits (the kernels' two-instruction decode) equals e4m4_decode for all 256 codes") {
  // Codes 0x01..0x0F decode through a denormal float: a build that flushes denormals fails here.
  const auto got = decode_on_gpu(decode_bits_all);
  for (int c = 0; c < 256; ++c) REQUIRE(got[c] == kbit::e4m4_decode(uint8_t(c)));
}

TEST_CASE("gpu: tiled offsets and bit-plane unpacking equal the host") {
  for (int k = 2; k <= 5; ++k) {
    const int64_t N = 577, kbs = 65;
    std::vector<int64_t> poison(size_t(N * kbs), -1);
    int64_t* dw = device_copy(poison);
    int64_t* da = device_copy(poison);
    offsets<<<unsigned((N * kbs + 255) / 256), 256>>>(N, kbs, k, dw, da);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    const auto w = host_copy(dw, poison.size());
    const auto a = host_copy(da, poison.size());
    for (int64_t i = 0; i < N * kbs; ++i) {
      REQUIRE(w[size_t(i)] == kbit::tiled_word_offset(i / kbs, i % kbs, k - 1, N, k));
      REQUIRE(a[size_t(i)] == kbit::tiled_absmax_offset(i / kbs, i % kbs, N));
    }
    cudaFree(dw);
    cudaFree(da);
    std::vector<uint32_t> words = {0x9E3779B9u, 0x7F4A7C15u, 0xF39CC060u, 0x5CEDC834u, 0x0u};
    uint32_t* dwords = device_copy(words);
    int* didx = device_copy(std::vector<int>(32, -1));
    unpack<<<1, 32>>>(dwords, k, didx);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    const auto idx = host_copy(didx, 32);
    for (int j = 0; j < 32; ++j) REQUIRE(idx[size_t(j)] == kbit::unpack_index(words.data(), j, k));
    cudaFree(dwords);
    cudaFree(didx);
  }
}

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: GPU tests skipped\n");
    return 77;  // ctest SKIP_RETURN_CODE
  }
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
