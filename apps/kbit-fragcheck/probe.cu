// kbit-fragcheck --gpu probe kernels (sm_90): the real instructions against the CPU model.
//  1. ldmatrix .x1/.x2/.x4, with and without .trans, from rows at scattered 16-byte slots holding
//     16-bit codes (matrix, row, col): every register must equal frag::simulate_ldmatrix.
//  2. ldmatrix from the swizzled layouts, tile filled and addressed on the device by
//     smem_layout.h: A .x4 (TM = 64), dequantized B .x2 / .x4 (TN = 128) -> mma A / B fragments.
//  3. mma.sync m16n8k16 row.col for f16 and bf16 inputs (f32 accumulate) and f16 (f16
//     accumulate): registers packed by the model's A/B/C maps from identity, one-hot, code and
//     random small-integer matrices; D decoded by the model's C map must equal A*B + C exactly.
//  4. Chain: A tile by cp.async into the swizzled layout, W' into the B layout, ldmatrix + mma over
//     K = 64 for a 16 x 64 output: must equal the exact CPU product.
//  5. Bit planes: a global k-tile cp.async'ed into the plain and skewed bit-plane layouts; every
//     lane extracts the index of each B fragment element via bfrag_bp_source.
//  6. wgmma m64n32k16 (sm_90a) as the tcw kernel drives it: A from registers packed by the mma
//     m16n8k16 A map per warp (warp w = rows 16 w..), B from a 32-token step tile laid out by
//     tcv::tcw_b_byte and read through tcv::tcw_desc (+ 16 per sub-step), D decoded by tcv's
//     accumulator map: must equal the exact CPU product for sub-steps 0, 3 and 7.
// Each check names the first mismatching lane / register.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kbit/format.h"
#include "kbit/fragment.h"
#include "kbit/smem_layout.h"
#include "kbit/tcv_map.h"
#include "probe.h"

namespace kbit::fragcheck {

namespace {

using frag::Acc;
using frag::Elt;
using frag::RowCol;

// --inject-fault: every probe compares the device against a deliberately wrong expectation (a
// flipped .trans, a lane shifted by one, a transposed operand, a bit position off by one), to show
// that each GPU comparison can fail and names the first mismatching lane / register.
bool g_inject = false;

void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class T>
struct DevBuf {
  T* p = nullptr;
  size_t n = 0;
  explicit DevBuf(size_t n_) : n(n_) { ck(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc"); }
  DevBuf(const std::vector<T>& h) : DevBuf(h.size()) {
    ck(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  std::vector<T> get() const {
    std::vector<T> h(n);
    ck(cudaDeviceSynchronize(), "kernel");
    ck(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return h;
  }
  void poison() { ck(cudaMemset(p, 0xFF, n * sizeof(T)), "cudaMemset"); }
};


// ---- device helpers -----------------------------------------------------------------------------
__device__ uint32_t smem_u32(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

template <int NUM, bool TRANS>
__device__ void ldmatrix(uint32_t (&r)[4], uint32_t addr) {
  if constexpr (NUM == 1 && !TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(addr));
  else if constexpr (NUM == 1 && TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(addr));
  else if constexpr (NUM == 2 && !TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
  else if constexpr (NUM == 2 && TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr));
  else if constexpr (NUM == 4 && !TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// D = A * B + C, f32 accumulate.
template <Elt E>
__device__ void mma_f32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4]) {
  if constexpr (E == Elt::f16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%10, %11, %12, %13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%10, %11, %12, %13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}
__device__ void mma_f16acc(uint32_t (&d)[2], const uint32_t (&a)[4], const uint32_t (&b)[2], const uint32_t (&c)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};\n"
      : "=r"(d[0]), "=r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
}

__device__ void cp_async16(void* smem_dst, const void* gmem_src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(smem_dst)), "l"(gmem_src));
}
__device__ void cp_async_wait_all() {
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::);
}

// ---- 1. raw ldmatrix ------------------------------------------------------------------------------
constexpr int kSlots = 32;  // 16-byte slots of the probe's shared array

template <int NUM, bool TRANS>
__global__ void ldmatrix_probe(const uint16_t* tile, const int* lane_off, uint32_t* out) {
  __shared__ alignas(16) uint16_t s[kSlots * 8];
  const int lane = threadIdx.x;
  for (int i = lane; i < kSlots * 8; i += 32) s[i] = tile[i];
  __syncwarp();
  uint32_t r[4] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
  ldmatrix<NUM, TRANS>(r, smem_u32(s + lane_off[lane]));
  for (int i = 0; i < NUM; ++i) out[lane * 4 + i] = r[i];
}

template <int NUM, bool TRANS>
Check probe_ldmatrix() {
  Check c = make_check("gpu", format_msg("ldmatrix.x%d%s == model", NUM, TRANS ? ".trans" : ""));
  // Row (q, r) lives in slot (8q + r) * 13 % 32: scattered, 16-byte aligned.
  auto slot = [](int q, int r) { return (8 * q + r) * 13 % kSlots; };
  std::vector<uint16_t> tile(kSlots * 8, 0xFFFF);
  for (int q = 0; q < 4; ++q)
    for (int r = 0; r < 8; ++r)
      for (int col = 0; col < 8; ++col) tile[size_t(slot(q, r) * 8 + col)] = uint16_t(q * 64 + r * 8 + col);
  std::vector<int> off(32);
  for (int l = 0; l < 32; ++l) {
    const int q = frag::ldmatrix_addr_matrix(l) % NUM;  // lanes >= 8*NUM: valid but unused addresses
    off[size_t(l)] = slot(q, frag::ldmatrix_addr_row(l)) * 8;
  }
  uint32_t want[32][4] = {};
  const std::string err = frag::simulate_ldmatrix(tile.data(), tile.size(), off.data(), NUM, TRANS != g_inject, want);
  if (!err.empty()) {
    fail_check(c, err);
    return c;
  }
  DevBuf<uint16_t> dt(tile);
  DevBuf<int> doff(off);
  DevBuf<uint32_t> dout(32 * 4);
  dout.poison();
  ldmatrix_probe<NUM, TRANS><<<1, 32>>>(dt.p, doff.p, dout.p);
  ck(cudaGetLastError(), "launch ldmatrix_probe");
  const auto got = dout.get();
  for (int l = 0; l < 32; ++l)
    for (int reg = 0; reg < NUM; ++reg) {
      ++c.cases;
      const uint32_t g = got[size_t(l * 4 + reg)], w = want[l][reg];
      if (g != w) {
        auto d = [](uint32_t v, int h) {
          const int code = (v >> (16 * h)) & 0xFFFF;
          return format_msg("(m%d r%d c%d)", code / 64, code / 8 % 8, code % 8);
        };
        fail_check(c, format_msg("lane %d reg %d: got %s %s, model %s %s", l, reg, d(g, 0).c_str(), d(g, 1).c_str(), d(w, 0).c_str(),
                    d(w, 1).c_str()));
      }
    }
  return c;
}

// ---- 2. ldmatrix from the swizzled layouts ------------------------------------------------------
constexpr int kLayA = 0, kLayBx2 = 1, kLayBx4 = 2;
constexpr int kTMProbe = 64, kTNProbe = 128;

__global__ void layout_probe(int which, uint32_t* out) {
  __shared__ alignas(128) uint16_t s[kTNProbe * kTileK];
  const int lane = threadIdx.x;
  const int rows = which == kLayA ? kTMProbe : kTNProbe;
  for (int i = lane; i < rows * kTileK; i += 32) {
    const int r = i / kTileK, col = i % kTileK;
    s[which == kLayA ? smem::a_tile_offset(r, col) : smem::b_tile_offset(r, col)] = uint16_t(i);
  }
  __syncwarp();
  int inst = 0;
  if (which == kLayA) {
    for (int m0 = 0; m0 < kTMProbe; m0 += 16)
      for (int k0 = 0; k0 < kTileK; k0 += 16, ++inst) {
        uint32_t r[4];
        ldmatrix<4, false>(r, smem_u32(s + smem::a_ldmatrix_x4_offset(lane, m0, k0)));
        for (int i = 0; i < 4; ++i) out[(inst * 32 + lane) * 4 + i] = r[i];
      }
  } else {
    const int step = which == kLayBx2 ? 8 : 16;
    for (int n0 = 0; n0 < kTNProbe; n0 += step)
      for (int k0 = 0; k0 < kTileK; k0 += 16, ++inst) {
        uint32_t r[4] = {0, 0, 0, 0};
        if (which == kLayBx2)
          ldmatrix<2, false>(r, smem_u32(s + smem::b_ldmatrix_x2_offset(lane, n0, k0)));
        else
          ldmatrix<4, false>(r, smem_u32(s + smem::b_ldmatrix_x4_offset(lane, n0, k0)));
        for (int i = 0; i < 4; ++i) out[(inst * 32 + lane) * 4 + i] = r[i];
      }
  }
}

Check probe_layout(int which) {
  const int num = which == kLayBx2 ? 2 : 4;
  Check c = make_check("gpu", which == kLayA ? format_msg("A tile TM=%d ldmatrix.x4 -> mma A", kTMProbe)
                                : format_msg("B tile TN=%d ldmatrix.x%d -> mma B", kTNProbe, num));
  const int insts = which == kLayA ? (kTMProbe / 16) * 4 : (kTNProbe / (which == kLayBx2 ? 8 : 16)) * 4;
  DevBuf<uint32_t> dout(size_t(insts) * 32 * 4);
  dout.poison();
  layout_probe<<<1, 32>>>(which, dout.p);
  ck(cudaGetLastError(), "launch layout_probe");
  const auto got = dout.get();
  int inst = 0;
  const int outer = which == kLayA ? kTMProbe : kTNProbe, step = which == kLayBx2 ? 8 : 16;
  for (int r0 = 0; r0 < outer; r0 += step)
    for (int k0 = 0; k0 < kTileK; k0 += 16, ++inst)
      for (int l = 0; l < 32; ++l)
        for (int reg = 0; reg < num; ++reg)
          for (int half = 0; half < 2; ++half) {
            ++c.cases;
            RowCol want;
            const int le = g_inject ? (l + 1) % 32 : l;
            if (which == kLayA) {
              const RowCol mk = frag::mma_a(le, reg, half);
              want = {r0 + mk.row, k0 + mk.col};
            } else {
              const RowCol kn = frag::mma_b(le, reg & 1, half);
              want = {r0 + kn.col + 8 * (reg >> 1), k0 + kn.row};
            }
            const int code = (got[size_t((inst * 32 + l) * 4 + reg)] >> (16 * half)) & 0xFFFF;
            const RowCol g{code / kTileK, code % kTileK};
            if (!(g == want))
              fail_check(c, format_msg("%s0=%d k0=%d lane %d reg %d half %d: got (%d, %d), want (%d, %d)", which == kLayA ? "m" : "n",
                          r0, k0, l, reg, half, g.row, g.col, want.row, want.col));
          }
  return c;
}

// ---- 3. mma.sync m16n8k16 -------------------------------------------------------------------------
template <Elt E, Acc A>
__global__ void mma_probe(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d) {
  const int lane = threadIdx.x;
  uint32_t ar[4], br[2];
  for (int i = 0; i < 4; ++i) ar[i] = a[lane * 4 + i];
  for (int i = 0; i < 2; ++i) br[i] = b[lane * 2 + i];
  if constexpr (A == Acc::f32) {
    float cr[4], dr[4];
    for (int i = 0; i < 4; ++i) cr[i] = __uint_as_float(c[lane * 4 + i]);
    mma_f32<E>(dr, ar, br, cr);
    for (int i = 0; i < 4; ++i) d[lane * 4 + i] = __float_as_uint(dr[i]);
  } else {
    uint32_t cr[2] = {c[lane * 4], c[lane * 4 + 1]}, dr[2];
    mma_f16acc(dr, ar, br, cr);
    for (int i = 0; i < 2; ++i) d[lane * 4 + i] = dr[i];
  }
}

uint16_t to_bits(float v, Elt e) {
  if (e == Elt::f16) {
    const __half h = __float2half_rn(v);
    return __half_as_ushort(h);
  }
  const __nv_bfloat16 b = __float2bfloat16_rn(v);
  return __bfloat16_as_ushort(b);
}
float from_f16_bits(uint16_t u) { return __half2float(__ushort_as_half(u)); }

// Logical matrices (exact small integers): A 16x16 (m, k), B 16x8 (k, n), C 16x8 (m, n).
struct MmaCase {
  std::string what;
  float A[16][16], B[16][8], C[16][8];
};

std::vector<MmaCase> mma_cases() {
  std::vector<MmaCase> cs;
  auto zero = [](MmaCase& c) {
    for (auto& r : c.A) for (float& v : r) v = 0;
    for (auto& r : c.B) for (float& v : r) v = 0;
    for (auto& r : c.C) for (float& v : r) v = 0;
  };
  {  // A = I: D = B, checks the B map (and C map).
    MmaCase c;
    zero(c);
    c.what = "A=I, B=codes";
    for (int i = 0; i < 16; ++i) c.A[i][i] = 1;
    for (int kk = 0; kk < 16; ++kk)
      for (int n = 0; n < 8; ++n) c.B[kk][n] = float(kk * 8 + n);
    cs.push_back(c);
  }
  for (int sel = 0; sel < 2; ++sel) {  // B one-hot: D[m][n] = A[m][n + 8 sel], checks the A map.
    MmaCase c;
    zero(c);
    c.what = format_msg("A=codes, B=select k=n+%d", 8 * sel);
    for (int m = 0; m < 16; ++m)
      for (int kk = 0; kk < 16; ++kk) c.A[m][kk] = float(m * 16 + kk);
    for (int n = 0; n < 8; ++n) c.B[n + 8 * sel][n] = 1;
    cs.push_back(c);
  }
  {  // D = C: the C input map round-trips through D.
    MmaCase c;
    zero(c);
    c.what = "A=0, B=0, C=codes";
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n) c.C[m][n] = float(m * 8 + n);
    cs.push_back(c);
  }
  {  // Random small integers, exact in f16/bf16 and in an f16 accumulator (|D| < 2048).
    MmaCase c;
    c.what = "random ints in [-8, 8]";
    std::mt19937 rng(7);
    auto ri = [&] { return float(int(rng() % 17) - 8); };
    for (auto& r : c.A) for (float& v : r) v = ri();
    for (auto& r : c.B) for (float& v : r) v = ri();
    for (auto& r : c.C) for (float& v : r) v = ri();
    cs.push_back(c);
  }
  return cs;
}

template <Elt E, Acc A>
Check probe_mma() {
  Check c = make_check("gpu", format_msg("mma.m16n8k16 %s x %s -> %s == model", frag::elt_name(E), frag::elt_name(E), frag::acc_name(A)));
  for (const MmaCase& mc : mma_cases()) {
    std::vector<uint32_t> a(32 * 4), b(32 * 2), cc(32 * 4, 0);
    for (int l = 0; l < 32; ++l) {
      for (int reg = 0; reg < 4; ++reg) {
        uint32_t v = 0;
        for (int h = 0; h < 2; ++h) {
          const RowCol rc = frag::mma_a(l, reg, h);
          v |= uint32_t(to_bits(g_inject ? mc.A[rc.col][rc.row] : mc.A[rc.row][rc.col], E)) << (16 * h);
        }
        a[size_t(l * 4 + reg)] = v;
      }
      for (int reg = 0; reg < 2; ++reg) {
        uint32_t v = 0;
        for (int h = 0; h < 2; ++h) {
          const RowCol rc = frag::mma_b(l, reg, h);
          v |= uint32_t(to_bits(mc.B[rc.row][rc.col], E)) << (16 * h);
        }
        b[size_t(l * 2 + reg)] = v;
      }
      for (int reg = 0; reg < frag::c_regs(A); ++reg) {
        uint32_t v = 0;
        if (A == Acc::f32) {
          const RowCol rc = frag::mma_c(l, reg, 0, A);
          const float f = mc.C[rc.row][rc.col];
          std::memcpy(&v, &f, 4);
        } else {
          for (int h = 0; h < 2; ++h) {
            const RowCol rc = frag::mma_c(l, reg, h, A);
            v |= uint32_t(to_bits(mc.C[rc.row][rc.col], Elt::f16)) << (16 * h);
          }
        }
        cc[size_t(l * 4 + reg)] = v;
      }
    }
    DevBuf<uint32_t> da(a), db(b), dc(cc), dd(32 * 4);
    dd.poison();
    mma_probe<E, A><<<1, 32>>>(da.p, db.p, dc.p, dd.p);
    ck(cudaGetLastError(), "launch mma_probe");
    const auto d = dd.get();
    for (int l = 0; l < 32; ++l)
      for (int reg = 0; reg < frag::c_regs(A); ++reg)
        for (int h = 0; h < frag::c_halves_per_reg(A); ++h) {
          ++c.cases;
          const RowCol rc = frag::mma_c(l, reg, h, A);
          double want = mc.C[rc.row][rc.col];
          for (int kk = 0; kk < 16; ++kk) want += double(mc.A[rc.row][kk]) * mc.B[kk][rc.col];
          const uint32_t raw = d[size_t(l * 4 + reg)];
          float got;
          if (A == Acc::f32)
            std::memcpy(&got, &raw, 4);
          else
            got = from_f16_bits(uint16_t(raw >> (16 * h)));
          if (!(double(got) == want))
            fail_check(c, format_msg("%s: lane %d reg %d half %d = D(%d, %d): got %g, want %g", mc.what.c_str(), l, reg, h, rc.row,
                        rc.col, double(got), want));
        }
  }
  return c;
}

// ---- 4. chain: cp.async A + B layout + ldmatrix + mma over one k-tile --------------------------
constexpr int kChainM = 16, kChainN = 64;

template <Elt E>
__global__ void chain_probe(const uint16_t* A, const uint16_t* W, int bnum, float* out) {
  __shared__ alignas(128) uint16_t sa[kChainM * kTileK];
  __shared__ alignas(128) uint16_t sb[kChainN * kTileK];
  const int lane = threadIdx.x;
  for (int c = lane; c < kChainM * smem::kChunksPerRow; c += 32) cp_async16(sa + smem::a_cp_async_chunk_offset(c), A + c * 8);
  cp_async_wait_all();
  for (int i = lane; i < kChainN * kTileK; i += 32) sb[smem::b_tile_offset(i / kTileK, i % kTileK)] = W[i];
  __syncwarp();
  float acc[kChainN / 8][4] = {};
  for (int k0 = 0; k0 < kTileK; k0 += 16) {
    uint32_t a[4];
    ldmatrix<4, false>(a, smem_u32(sa + smem::a_ldmatrix_x4_offset(lane, 0, k0)));
    for (int nb = 0; nb < kChainN / 8; nb += 2) {
      uint32_t r[4];
      if (bnum == 4) {
        ldmatrix<4, false>(r, smem_u32(sb + smem::b_ldmatrix_x4_offset(lane, 8 * nb, k0)));
      } else {
        uint32_t r2[4];
        ldmatrix<2, false>(r, smem_u32(sb + smem::b_ldmatrix_x2_offset(lane, 8 * nb, k0)));
        ldmatrix<2, false>(r2, smem_u32(sb + smem::b_ldmatrix_x2_offset(lane, 8 * nb + 8, k0)));
        r[2] = r2[0];
        r[3] = r2[1];
      }
      const uint32_t b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
      mma_f32<E>(acc[nb], a, b0, acc[nb]);
      mma_f32<E>(acc[nb + 1], a, b1, acc[nb + 1]);
    }
  }
  for (int nb = 0; nb < kChainN / 8; ++nb)
    for (int i = 0; i < 4; ++i) out[(nb * 32 + lane) * 4 + i] = acc[nb][i];
}

template <Elt E>
Check probe_chain(int bnum) {
  Check c = make_check("gpu", format_msg("chain %s: cp.async A TM=16 + B TN=64 + ldmatrix(B .x%d) + mma, K=64", frag::elt_name(E), bnum));
  std::mt19937 rng(11 + bnum);
  std::vector<float> A(kChainM * kTileK), W(kChainN * kTileK);
  for (float& v : A) v = float(int(rng() % 9) - 4);
  for (float& v : W) v = float(int(rng() % 9) - 4);
  std::vector<uint16_t> Ab(A.size()), Wb(W.size());
  for (size_t i = 0; i < A.size(); ++i) Ab[i] = to_bits(A[i], E);
  for (size_t i = 0; i < W.size(); ++i) Wb[i] = to_bits(W[i], E);
  DevBuf<uint16_t> dA(Ab), dW(Wb);
  DevBuf<float> dout(size_t(kChainN / 8) * 32 * 4);
  dout.poison();
  chain_probe<E><<<1, 32>>>(dA.p, dW.p, bnum, dout.p);
  ck(cudaGetLastError(), "launch chain_probe");
  const auto got = dout.get();
  for (int nb = 0; nb < kChainN / 8; ++nb)
    for (int l = 0; l < 32; ++l)
      for (int reg = 0; reg < 4; ++reg) {
        ++c.cases;
        const RowCol mn = frag::mma_c(l, reg, 0, Acc::f32);
        const int m = mn.row, n = 8 * nb + mn.col;
        double want = 0;
        for (int kk = 0; kk < kTileK; ++kk)
          want += double(A[size_t(m * kTileK + kk)]) * W[g_inject ? size_t(kk * kTileK + n) : size_t(n * kTileK + kk)];
        const float g = got[size_t((nb * 32 + l) * 4 + reg)];
        if (!(double(g) == want))
          fail_check(c, format_msg("n-block %d lane %d reg %d = C(%d, %d): got %g, want %g", nb, l, reg, m, n, double(g), want));
      }
  return c;
}

// ---- 5. bit planes: cp.async into the layout, extraction per the mma B map ----------------------
constexpr int kBpTN = 64;

__global__ void bp_probe(const uint32_t* tile, int k, bool skewed, int* out) {
  __shared__ alignas(128) uint32_t s[kBpTN * 2 * kMaxBits + 64];
  const int lane = threadIdx.x;
  for (int i = lane; i < smem::bp_tile_words(kBpTN, k, skewed); i += 32) s[i] = 0xDEADBEEFu;
  __syncwarp();
  for (int c = lane; c < smem::bp_cp_async_chunks(kBpTN, k); c += 32)
    cp_async16(s + smem::bp_cp_async_dst_word(c, k, skewed), tile + 4 * c);
  cp_async_wait_all();
  __syncwarp();
  int inst = 0;
  for (int n0 = 0; n0 < kBpTN; n0 += 8)
    for (int k0 = 0; k0 < kTileK; k0 += 16, ++inst)
      for (int reg = 0; reg < 2; ++reg)
        for (int half = 0; half < 2; ++half) {
          const smem::BpSource src = smem::bfrag_bp_source(lane, reg, half, n0, k0);
          int idx = 0;
          for (int b = 0; b < k; ++b) idx |= int((s[smem::bp_word_offset(src.n, src.h, b, k, skewed)] >> src.j) & 1u) << b;
          out[((inst * 32 + lane) * 2 + reg) * 2 + half] = idx;
        }
}

Check probe_bp(int k, bool skewed) {
  Check c = make_check("gpu", format_msg("bit planes TN=%d k=%d %s: cp.async + extraction -> mma B indices", kBpTN, k,
                     skewed ? "skewed" : "plain"));
  std::mt19937 rng(100 + k + (skewed ? 50 : 0));
  std::vector<int> idx(kBpTN * kTileK);
  for (int& v : idx) v = int(rng() % uint32_t(codebook_size(k)));
  // The global k-tile kt = 0 of an N = kBpTN matrix: words at tiled_word_offset (format.h).
  std::vector<uint32_t> words(size_t(tiled_words(kBpTN, kTileK, k)), 0);
  for (int n = 0; n < kBpTN; ++n)
    for (int kb = 0; kb < 2; ++kb)
      for (int b = 0; b < k; ++b) {
        uint32_t w = 0;
        for (int j = 0; j < 32; ++j) w |= uint32_t((idx[size_t(n * kTileK + 32 * kb + j)] >> b) & 1) << j;
        words[size_t(tiled_word_offset(n, kb, b, kBpTN, k))] = w;
      }
  DevBuf<uint32_t> dw(words);
  const int insts = (kBpTN / 8) * 4;
  DevBuf<int> dout(size_t(insts) * 32 * 4);
  dout.poison();
  bp_probe<<<1, 32>>>(dw.p, k, skewed, dout.p);
  ck(cudaGetLastError(), "launch bp_probe");
  const auto got = dout.get();
  int inst = 0;
  for (int n0 = 0; n0 < kBpTN; n0 += 8)
    for (int k0 = 0; k0 < kTileK; k0 += 16, ++inst)
      for (int l = 0; l < 32; ++l)
        for (int reg = 0; reg < 2; ++reg)
          for (int h = 0; h < 2; ++h) {
            ++c.cases;
            const RowCol kn = frag::mma_b(l, reg, h);
            const int want = idx[size_t((n0 + kn.col) * kTileK + (k0 + kn.row + (g_inject ? 1 : 0)) % kTileK)];
            const int g = got[size_t(((inst * 32 + l) * 2 + reg) * 2 + h)];
            if (g != want)
              fail_check(c, format_msg("n0=%d k0=%d lane %d reg %d half %d: B(k=%d, n=%d) got index %d, want %d", n0, k0, l, reg, h,
                          k0 + kn.row, n0 + kn.col, g, want));
          }
  return c;
}

// ---- 6. wgmma m64n32k16: register A, B through tcw's descriptor ----------------------------------
constexpr int kWgTokens = 32;
constexpr int kWgTileHalves = kWgTokens * tcv::kStepK;  // one 128-k step of 32 tokens (8 KB)

// One warpgroup: stage the step tile, one wgmma on sub-step `sub`, write the accumulators. Without
// sm_90a the kernel writes a NaN sentinel and the host reports the probe as not runnable.
__global__ void wgmma_probe(const uint32_t* a, const uint16_t* tile, int sub, float* d) {
  __shared__ alignas(128) uint16_t s[kWgTileHalves];
  const int t = threadIdx.x;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  for (int i = t; i < kWgTileHalves; i += 128) s[i] = tile[i];
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  uint32_t ar[4];
  for (int i = 0; i < 4; ++i) ar[i] = a[t * 4 + i];
  float c[16];
  for (int i = 0; i < 16; ++i) c[i] = 0.0f;
  const uint64_t desc = tcv::tcw_desc(smem_u32(s)) + 16ull * static_cast<uint64_t>(sub);
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
      "%12, %13, %14, %15}, {%16, %17, %18, %19}, %20, 1, 1, 1, 0;\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]), "+f"(c[4]), "+f"(c[5]), "+f"(c[6]), "+f"(c[7]), "+f"(c[8]),
        "+f"(c[9]), "+f"(c[10]), "+f"(c[11]), "+f"(c[12]), "+f"(c[13]), "+f"(c[14]), "+f"(c[15])
      : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(desc));
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  for (int i = 0; i < 16; ++i) d[t * 16 + i] = c[i];
#else
  (void)a, (void)tile, (void)sub, (void)s;
  for (int i = 0; i < 16; ++i) d[t * 16 + i] = __int_as_float(0x7FC00000);
#endif
}

Check probe_wgmma(int sub) {
  Check c = make_check("gpu", format_msg("wgmma m64n32k16 A=registers (mma A map per warp), B=tcw tile sub-step %d == model", sub));
  std::mt19937 rng(11 + sub);
  auto ri = [&] { return float(int(rng() % 9) - 4); };
  for (int pattern = 0; pattern < 2; ++pattern) {
    // A 64 x 16 (weight row, k-slot), B 16 x 32 (k-slot, token): small integers, exact in f16/f32.
    // pattern 0: random; pattern 1: A = codes, B selects k-slot (token % 16) -> D = A column.
    std::vector<float> A(64 * 16), B(16 * kWgTokens, 0.0f);
    for (int m = 0; m < 64; ++m)
      for (int j = 0; j < 16; ++j) A[size_t(m * 16 + j)] = pattern == 0 ? ri() : float((m * 16 + j) % 61 - 30);
    for (int j = 0; j < 16; ++j)
      for (int n = 0; n < kWgTokens; ++n) B[size_t(j * kWgTokens + n)] = pattern == 0 ? ri() : float(j == n % 16);
    std::vector<uint32_t> a(128 * 4);
    for (int t = 0; t < 128; ++t)
      for (int reg = 0; reg < 4; ++reg) {
        uint32_t v = 0;
        for (int h = 0; h < 2; ++h) {
          const RowCol rc = frag::mma_a(t % 32, reg, h);
          v |= uint32_t(to_bits(A[size_t((16 * (t / 32) + rc.row) * 16 + rc.col)], Elt::f16)) << (16 * h);
        }
        a[size_t(t * 4 + reg)] = v;
      }
    // The whole step tile: sub-step `sub` holds B, the others a value B never has (a read of the
    // wrong sub-step shows).
    std::vector<uint16_t> tile(kWgTileHalves, to_bits(7.0f, Elt::f16));
    for (int n = 0; n < kWgTokens; ++n)
      for (int j = 0; j < 16; ++j) tile[size_t(tcv::tcw_b_byte(n, sub, j) / 2)] = to_bits(B[size_t(j * kWgTokens + n)], Elt::f16);
    DevBuf<uint32_t> da(a);
    DevBuf<uint16_t> dt(tile);
    DevBuf<float> dd(128 * 16);
    dd.poison();
    wgmma_probe<<<1, 128>>>(da.p, dt.p, sub, dd.p);
    ck(cudaGetLastError(), "launch wgmma_probe");
    const auto d = dd.get();
    if (std::isnan(d[0])) {
      fail_check(c, "not built for sm_90a (the probe kernel has no wgmma): build with KBIT_CUDA_ARCHS=90a");
      return c;
    }
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < 16; ++i) {
        ++c.cases;
        const int lane = t % 32, r = i % 4, tt = i / 4;
        const int m = 16 * (t / 32) + tcv::c_row(lane, r);
        const int n = 8 * tt + (g_inject ? tcv::c_token(lane, r ^ 1) : tcv::c_token(lane, r));
        double want = 0;
        for (int j = 0; j < 16; ++j) want += double(A[size_t(m * 16 + j)]) * B[size_t(j * kWgTokens + n)];
        if (!(double(d[size_t(t * 16 + i)]) == want))
          fail_check(c, format_msg("pattern %d: thread %d acc %d = D(%d, %d): got %g, want %g", pattern, t, i, m, n,
                                   double(d[size_t(t * 16 + i)]), want));
      }
  }
  return c;
}

}  // namespace

std::vector<Check> run_gpu_probes(GpuInfo& info, bool inject_fault) {
  g_inject = inject_fault;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    info.available = false;
    info.device = e != cudaSuccess ? std::string("no CUDA device: ") + cudaGetErrorString(e) : "no CUDA device";
    return {};
  }
  cudaDeviceProp prop{};
  ck(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  info.available = true;
  info.device = format_msg("%s, sm_%d%d, driver %d, runtime %d", prop.name, prop.major, prop.minor, drv, rt);

  std::vector<Check> out;
  auto run = [&](auto&& f) {
    try {
      out.push_back(f());
    } catch (const std::exception& ex) {
      Check c = make_check("gpu", "probe error");
      fail_check(c, ex.what());
      out.push_back(c);
    }
  };
  run(probe_ldmatrix<1, false>);
  run(probe_ldmatrix<2, false>);
  run(probe_ldmatrix<4, false>);
  run(probe_ldmatrix<1, true>);
  run(probe_ldmatrix<2, true>);
  run(probe_ldmatrix<4, true>);
  run([] { return probe_layout(kLayA); });
  run([] { return probe_layout(kLayBx2); });
  run([] { return probe_layout(kLayBx4); });
  run(probe_mma<Elt::f16, Acc::f32>);
  run(probe_mma<Elt::bf16, Acc::f32>);
  run(probe_mma<Elt::f16, Acc::f16>);
  run([] { return probe_chain<Elt::f16>(4); });
  run([] { return probe_chain<Elt::bf16>(4); });
  run([] { return probe_chain<Elt::f16>(2); });
  run([] { return probe_chain<Elt::bf16>(2); });
  for (int k = kMinBits; k <= kMaxBits; ++k)
    for (bool skewed : {false, true}) run([&] { return probe_bp(k, skewed); });
  if (prop.major == 9 && prop.minor == 0)  // wgmma exists on sm_90 only
    for (int sub : {0, 3, 7}) run([&] { return probe_wgmma(sub); });
  return out;
}

}  // namespace kbit::fragcheck
