// AVX-512 (F) version of the encoder's index loop: 16 elements per instruction, the codebook in
// one (k <= 4) or two (k = 5) registers, looked up with vpermps / vpermt2ps, a binary search of
// k steps with mask registers. Same results as the scalar code, bit for bit (tests/test_encode).
#include "kbit/encode_simd.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#define KBIT_AVX512 __attribute__((target("avx512f,avx2")))

namespace kbit::avx512 {
namespace {

template <int n>
KBIT_AVX512 inline __m512 lookup(__m512 t0, __m512 t1, __m512i i) {
  if constexpr (n <= 16) return _mm512_permutexvar_ps(i, t0);
  else return _mm512_permutex2var_ps(t0, i, t1);
}

// Lanes in `lanes` take the scalar rule (rare: ties, or |t| outside the proven range).
template <int n>
KBIT_AVX512 inline __m512i scalar_lanes(__m512i result, __m512 tv, __mmask16 lanes, const float* cb) {
  alignas(64) int32_t r[16];
  alignas(64) float tl[16];
  _mm512_store_si512(r, result);
  _mm512_store_ps(tl, tv);
  for (int l = 0; l < 16; ++l)
    if (lanes & (1 << l)) r[l] = detail::nearest_index_sorted(tl[l], cb, n);
  return _mm512_load_si512(r);
}

// See detail::nearest_index_sorted for why p-1 / p and the walk-back give the scan's answer.
template <int n>
KBIT_AVX512 inline __m512i nearest16(__m512 t0, __m512 t1, const float* cb, __m512 tv) {
  const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
  __m512i p = zero;  // #{cb[i] < t}: binary search over the ascending table
  for (int step = n / 2; step >= 1; step /= 2) {
    const __m512i probe = _mm512_add_epi32(p, _mm512_set1_epi32(step - 1));
    const __mmask16 below = _mm512_cmp_ps_mask(lookup<n>(t0, t1, probe), tv, _CMP_LT_OQ);
    p = _mm512_mask_add_epi32(p, below, p, _mm512_set1_epi32(step));
  }
  const __m512i lo = _mm512_max_epi32(_mm512_sub_epi32(p, one), zero);
  const __m512i hi = _mm512_min_epi32(p, _mm512_set1_epi32(n - 1));
  const __m512 d_lo = _mm512_abs_ps(_mm512_sub_ps(tv, lookup<n>(t0, t1, lo)));
  const __m512 d_hi = _mm512_abs_ps(_mm512_sub_ps(tv, lookup<n>(t0, t1, hi)));
  const __mmask16 take_hi =
      _mm512_cmpeq_epi32_mask(p, zero) |
      (_mm512_cmplt_epi32_mask(p, _mm512_set1_epi32(n)) & _mm512_cmp_ps_mask(d_hi, d_lo, _CMP_LT_OQ));
  const __m512i result = _mm512_mask_blend_epi32(take_hi, lo, p);
  const __m512i lo2 = _mm512_max_epi32(_mm512_sub_epi32(lo, one), zero);
  const __m512 d_lo2 = _mm512_abs_ps(_mm512_sub_ps(tv, lookup<n>(t0, t1, lo2)));
  const __mmask16 tie = static_cast<__mmask16>(~take_hi) & _mm512_cmpgt_epi32_mask(lo, zero) &
                        _mm512_cmp_ps_mask(d_lo2, d_lo, _CMP_EQ_OQ);
  return tie ? scalar_lanes<n>(result, tv, tie, cb) : result;  // ties: the scalar walk decides
}

// With exact decision thresholds (detail::DecisionThresholds): idx = #{theta_i <= t}, a binary
// search of k steps and nothing else. Lanes with |t| beyond the range the thresholds were proven
// for take the scalar rule.
template <int n>
KBIT_AVX512 inline __m512i nearest16_thresholds(__m512 h0, __m512 h1, const float* cb, float t_max, __m512 tv) {
  __m512i p = _mm512_setzero_si512();
  for (int step = n / 2; step >= 1; step /= 2) {
    const __m512i probe = _mm512_add_epi32(p, _mm512_set1_epi32(step - 1));
    const __mmask16 le = _mm512_cmp_ps_mask(lookup<n>(h0, h1, probe), tv, _CMP_LE_OQ);
    p = _mm512_mask_add_epi32(p, le, p, _mm512_set1_epi32(step));
  }
  const __mmask16 out = _mm512_cmp_ps_mask(_mm512_abs_ps(tv), _mm512_set1_ps(t_max), _CMP_GT_OQ);
  return out ? scalar_lanes<n>(p, tv, out, cb) : p;
}

template <int n>
KBIT_AVX512 void encode_indices_n(const float* x, float divisor, const float* cb_padded,
                                  const detail::DecisionThresholds* th, int k, uint32_t* words, uint8_t* idx) {
  const __m512 t0 = _mm512_load_ps(cb_padded), t1 = _mm512_load_ps(cb_padded + 16);
  __m512i r[2];
  for (int q = 0; q < 2; ++q) {
    const __m512 tv = divisor == 0.0f ? _mm512_setzero_ps()
                                      : _mm512_div_ps(_mm512_loadu_ps(x + 16 * q), _mm512_set1_ps(divisor));
    if (th)
      r[q] = nearest16_thresholds<n>(_mm512_load_ps(th->theta), _mm512_load_ps(th->theta + 16), cb_padded,
                                     th->t_max, tv);
    else
      r[q] = nearest16<n>(t0, t1, cb_padded, tv);
  }
  const __m256i bytes = _mm256_set_m128i(_mm512_cvtepi32_epi8(r[1]), _mm512_cvtepi32_epi8(r[0]));
  // bit b of every byte to its top bit, collected by movemask in element order (as in AVX2)
  for (int b = 0; b < k; ++b)
    words[b] = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_sll_epi16(bytes, _mm_cvtsi32_si128(7 - b))));
  if (idx) _mm256_storeu_si256(reinterpret_cast<__m256i*>(idx), bytes);
}

}  // namespace

bool cpu_supported() { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2"); }

void encode_indices(const float* x, float divisor, const float* cb_padded,
                    const detail::DecisionThresholds* th, int n, int k, uint32_t* words, uint8_t* idx) {
  switch (n) {
    case 4: return encode_indices_n<4>(x, divisor, cb_padded, th, k, words, idx);
    case 8: return encode_indices_n<8>(x, divisor, cb_padded, th, k, words, idx);
    case 16: return encode_indices_n<16>(x, divisor, cb_padded, th, k, words, idx);
    default: return encode_indices_n<32>(x, divisor, cb_padded, th, k, words, idx);
  }
}

}  // namespace kbit::avx512

#else

namespace kbit::avx512 {
bool cpu_supported() { return false; }
void encode_indices(const float*, float, const float*, const detail::DecisionThresholds*, int, int, uint32_t*,
                    uint8_t*) {}
}  // namespace kbit::avx512

#endif
