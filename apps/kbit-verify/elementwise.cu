// The one device helper kbit-verify needs besides cuBLAS: x[i] = x[i]^2 in place (W'^2 for the
// NMSE variance bound, tolerance.h). fp32 products of values with <= 24 significant bits.
#include <cuda_runtime.h>

#include <cstdint>

namespace kbit::verify {

__global__ void square_inplace_kernel(float* x, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    x[i] = x[i] * x[i];
}

cudaError_t square_inplace(float* x, int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const int64_t blocks = (n + 255) / 256;
  square_inplace_kernel<<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(x, n);
  return cudaGetLastError();
}

}  // namespace kbit::verify
