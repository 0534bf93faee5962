#include "kbit/quantize.h"

#include <cmath>
#include <limits>
#include <algorithm>
#include <mutex>
#include <sstream>

#include "kbit/error.h"
#include "kbit/parallel.h"

namespace kbit {
namespace {

std::string block_where(const std::string& name, const TensorView& w, int64_t row, int64_t kb) {
  std::ostringstream s;
  s << "tensor '" << name << "'";
  if (w.fused) s << " expert " << row / w.N;
  s << " row " << row % w.N << " block " << kb << " (columns " << kb * kBlockSize << ".."
    << kb * kBlockSize + kBlockSize - 1 << ")";
  return s.str();
}

const char* row_ptr(const TensorView& w, int64_t row) {
  return static_cast<const char*>(w.data) + row * w.K * dtype_size(w.dtype);
}

}  // namespace

void check_quantizable(const std::string& name, const TensorView& w) {
  std::ostringstream s;
  if (w.N < 1 || w.E < 1 || w.K < 1)
    s << "tensor '" << name << "': empty shape (E " << w.E << ", N " << w.N << ", K " << w.K << ")";
  else if (w.K % kBlockSize != 0)
    s << "tensor '" << name << "': K = " << w.K << " (the last dimension) is not a multiple of "
      << kBlockSize << "; kbit needs K % 32 == 0, so leave this tensor unquantized";
  else if (!w.fused && w.E != 1)
    s << "tensor '" << name << "': E = " << w.E << " needs fused = true";
  if (!s.str().empty()) throw Error(s.str());
}

float tensor_absmax(const std::string& name, const TensorView& w, int threads) {
  check_quantizable(name, w);
  const int64_t rows = w.E * w.N;
  std::mutex m;
  float amax = 0.0f;
  parallel_for(rows, threads, [&](int64_t r0, int64_t r1) {
    std::vector<float> buf(static_cast<size_t>(w.K));
    float local = 0.0f;
    for (int64_t r = r0; r < r1; ++r) {
      to_f32(w.dtype, row_ptr(w, r), buf.data(), w.K);
      // Branch-free so the compiler vectorizes it; the slow loop below only names the culprit.
      bool finite = true;
      for (int64_t c = 0; c < w.K; ++c) {
        const float v = std::fabs(buf[c]);
        finite &= v <= std::numeric_limits<float>::max();
        local = v > local ? v : local;
      }
      if (!finite)
        for (int64_t c = 0; c < w.K; ++c)
          if (!std::isfinite(buf[c]))
            throw Error(block_where(name, w, r, c / kBlockSize) + ": element " + std::to_string(c % kBlockSize) +
                        " is " + (std::isnan(buf[c]) ? "NaN" : "infinite") + "; fix the source weights");
    }
    std::lock_guard<std::mutex> lock(m);
    amax = std::max(amax, local);
  });
  return amax;
}

QuantizedTensor quantize_tensor(const std::string& name, const TensorView& w, const Codebook& cb,
                                const QuantizeOptions& opt) {
  check_quantizable(name, w);
  validate_codebook(cb);
  int s = 0;
  if (opt.encoder == Encoder::search)
    s = opt.scale_exp ? *opt.scale_exp : choose_scale_exp(tensor_absmax(name, w, opt.threads));
  else if (opt.scale_exp && *opt.scale_exp != 0)
    throw Error("tensor '" + name + "': the bnb encoder cannot take a scale exponent");
  const BlockEncoder enc(cb, opt.encoder, s);

  QuantizedTensor q;
  q.name = name;
  q.bits = cb.bits;
  q.E = w.E;
  q.N = w.N;
  q.K = w.K;
  q.fused = w.fused;
  q.source_dtype = w.dtype;
  q.encoder = opt.encoder;
  q.codebook_name = cb.name;
  q.scale_exp = s;
  q.codebook_stored = enc.stored_codebook();
  const int k = cb.bits;
  const int64_t words_per_expert = tiled_words(w.N, w.K, k);
  const int64_t absmax_per_expert = tiled_absmax_bytes(w.N, w.K);
  q.packed.assign(static_cast<size_t>(w.E * words_per_expert), 0u);  // pad blocks stay 0
  q.absmax.assign(static_cast<size_t>(w.E * absmax_per_expert), 0u);

  const int64_t kb_count = k_blocks(w.K);
  parallel_for(w.E * w.N, opt.threads, [&](int64_t r0, int64_t r1) {
    std::vector<float> row(static_cast<size_t>(w.K));
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t e = r / w.N, n = r % w.N;
      to_f32(w.dtype, row_ptr(w, r), row.data(), w.K);
      uint32_t* packed = q.packed.data() + e * words_per_expert;
      uint8_t* absmax = q.absmax.data() + e * absmax_per_expert;
      for (int64_t kb = 0; kb < kb_count; ++kb) {
        try {
          absmax[tiled_absmax_offset(n, kb, w.N)] =
              enc.encode(row.data() + kb * kBlockSize, packed + tiled_word_offset(n, kb, 0, w.N, k));
        } catch (const Error& err) {
          throw Error(block_where(name, w, r, kb) + ": " + err.what());
        }
      }
    }
  });
  return q;
}

void flat_to_tiled(const uint32_t* words, const uint8_t* absmax, int64_t N, int64_t K, int k,
                   uint32_t* packed, uint8_t* absmax_tiled) {
  std::fill(packed, packed + tiled_words(N, K, k), 0u);
  std::fill(absmax_tiled, absmax_tiled + tiled_absmax_bytes(N, K), uint8_t{0});
  const int64_t kbs = k_blocks(K);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t kb = 0; kb < kbs; ++kb) {
      for (int b = 0; b < k; ++b) packed[tiled_word_offset(n, kb, b, N, k)] = words[(n * kbs + kb) * k + b];
      absmax_tiled[tiled_absmax_offset(n, kb, N)] = absmax[n * kbs + kb];
    }
}

void tiled_to_flat(const uint32_t* packed, const uint8_t* absmax_tiled, int64_t N, int64_t K, int k,
                   uint32_t* words, uint8_t* absmax) {
  const int64_t kbs = k_blocks(K);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t kb = 0; kb < kbs; ++kb) {
      for (int b = 0; b < k; ++b) words[(n * kbs + kb) * k + b] = packed[tiled_word_offset(n, kb, b, N, k)];
      absmax[n * kbs + kb] = absmax_tiled[tiled_absmax_offset(n, kb, N)];
    }
}

}  // namespace kbit
