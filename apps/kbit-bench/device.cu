// kbit-bench's own device helpers: the read-bandwidth kernel (a vectorized sum over a large
// buffer; the sum is written so the reads cannot be dropped) and the elementwise maps the
// verification reference needs (fp16/bf16 -> fp32, |x|, x^2). NOT YET RUN ON A GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace kbit::bench {

__global__ void read_sum_kernel(const uint4* __restrict__ p, int64_t n, unsigned* out) {
  unsigned acc = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const uint4 v = __ldcs(p + i);  // streaming: do not keep in L2
    acc ^= v.x + v.y + v.z + v.w;
  }
  if (acc == 0x9e3779b9u) atomicAdd(out, 1u);  // practically never: keeps the loads live
}

cudaError_t read_sum(const void* p, size_t bytes, unsigned* out, int sms, cudaStream_t s) {
  const int64_t n = int64_t(bytes / 16);
  read_sum_kernel<<<unsigned(sms * 8), 512, 0, s>>>(static_cast<const uint4*>(p), n, out);
  return cudaGetLastError();
}

// mode 0: to fp32; 1: |x| to fp32; 2: x^2 to fp32. type 0 f16, 1 bf16, 2 f32.
__global__ void map_kernel(const void* in, float* out, int64_t n, int type, int mode) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    float x = type == 0   ? __half2float(static_cast<const __half*>(in)[i])
              : type == 1 ? __bfloat162float(static_cast<const __nv_bfloat16*>(in)[i])
                          : static_cast<const float*>(in)[i];
    out[i] = mode == 0 ? x : mode == 1 ? fabsf(x) : x * x;
  }
}

cudaError_t map_to_f32(const void* in, float* out, int64_t n, int type, int mode, cudaStream_t s) {
  if (n <= 0) return cudaSuccess;
  const int64_t blocks = (n + 255) / 256;
  map_kernel<<<unsigned(blocks < 65536 ? blocks : 65536), 256, 0, s>>>(in, out, n, type, mode);
  return cudaGetLastError();
}

}  // namespace kbit::bench
