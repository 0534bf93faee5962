#include "kbit/quantize_check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "kbit/format.h"

namespace fs = std::filesystem;

namespace kbit {
namespace {

std::string shape_str(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

template <class T>
std::vector<T> copy_out(const st::File& f, const st::TensorInfo& t) {
  const auto b = f.bytes(t);
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  f.release(t);
  return v;
}

// Where word i of a tiled tensor lives (FORMAT §5): expert, row, block, bit plane.
std::string word_where(int64_t i, int64_t N, int64_t K, int k) {
  const int64_t per_expert = tiled_words(N, K, k);
  const int64_t e = i / per_expert, w = i % per_expert;
  const int64_t b = w % k, nh = w / k, h = nh % 2, n = (nh / 2) % N, kt = nh / 2 / N;
  std::ostringstream s;
  s << "expert " << e << " ";
  s << "row " << n << " block " << 2 * kt + h << " (columns " << (2 * kt + h) * kBlockSize << ".."
    << (2 * kt + h) * kBlockSize + kBlockSize - 1 << ") bit plane " << b;
  return s.str();
}

std::string absmax_where(int64_t i, int64_t N, int64_t K) {
  const int64_t per_expert = tiled_absmax_bytes(N, K);
  const int64_t e = i / per_expert, w = i % per_expert;
  const int64_t h = w % 2, n = (w / 2) % N, kt = w / 2 / N;
  std::ostringstream s;
  s << "expert " << e << " row " << n << " block " << 2 * kt + h;
  return s.str();
}

}  // namespace

double default_max_nmse(int bits) { return std::pow(10.0, -(6.0 * bits - 9.0) / 10.0); }

CheckResult check_output(const CheckOptions& opt, const CheckProgressFn& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckResult r;
  std::error_code ec;
  if (!fs::exists(opt.output, ec)) throw Error(opt.output.string() + ": does not exist");
  std::optional<st::Checkpoint> out;
  try {
    out.emplace(st::Checkpoint::open(opt.output));
  } catch (const Error& e) {
    r.problems.push_back(std::string("not a valid checkpoint: ") + e.what());
    return r;
  }
  for (const auto& w : out->warnings()) r.problems.push_back("index: " + w);
  const fs::path root = out->root();

  // config.json
  if (fs::is_directory(opt.output, ec) && fs::exists(root / "config.json", ec)) {
    const std::string label = (root / "config.json").string();
    try {
      std::ifstream in(root / "config.json");
      const auto config = nlohmann::json::parse(in);
      if (!config.contains("quantization_config") || !config["quantization_config"].is_object()) {
        r.problems.push_back(label + ": no quantization_config object");
      } else {
        const auto& q = config["quantization_config"];
        auto expect = [&](const char* key, const nlohmann::json& want) {
          if (!q.contains(key) || q[key] != want)
            r.problems.push_back(label + ": quantization_config." + key + " must be " + want.dump() +
                                 (q.contains(key) ? ", got " + q[key].dump() : " (missing)"));
        };
        expect("quant_method", "kbit");
        expect("format_version", kFormatVersion);
        expect("blocksize", kBlockSize);
        expect("absmax_format", "e4m4");
        expect("layout", "tiled64");
        if (!q.contains("bits") || !q["bits"].is_number_integer() || !valid_bits(q["bits"].get<int>()))
          r.problems.push_back(label + ": quantization_config.bits must be 2, 3, 4 or 5");
        if (!q.contains("encoder") || (q["encoder"] != "search" && q["encoder"] != "bnb"))
          r.problems.push_back(label + ": quantization_config.encoder must be \"search\" or \"bnb\"");
        if (!q.contains("codebook") || !q["codebook"].is_string())
          r.problems.push_back(label + ": quantization_config.codebook must be a string");
        if (!q.contains("modules_not_converted") || !q["modules_not_converted"].is_array())
          r.problems.push_back(label + ": quantization_config.modules_not_converted must be a list");
      }
    } catch (const nlohmann::json::exception& e) {
      r.problems.push_back(label + ": not valid JSON (" + e.what() + ")");
    }
  } else {
    r.notes.push_back("no config.json next to the shards: only the shard metadata was checked");
  }

  // Shard metadata and the three tensors of every quantized X.
  struct Located {
    const st::File* file;
    const st::TensorInfo *packed, *absmax, *codebook;
    int64_t E, N, K;
    bool fused;
  };
  std::map<std::string, Located> quantized;  // X -> where
  std::set<std::string> kbit_tensor_names;
  for (const st::File& f : out->shards()) {
    const std::string file = f.path().filename().string();
    const auto& md = f.header().metadata;
    if (md.count("format") == 0 || md.at("format") != "pt")
      r.problems.push_back(file + ": __metadata__ \"format\" must be \"pt\"");
    if (md.count("kbit.version") == 0 || md.at("kbit.version") != "1")
      r.problems.push_back(file + ": __metadata__ \"kbit.version\" must be \"1\"");
    for (const auto& [key, value] : md) {
      if (!key.starts_with("kbit.") || key == "kbit.version") continue;
      const std::string x = key.substr(5);
      CheckedTensor ct;
      ct.name = x;
      auto bad = [&](const std::string& what) { ct.problems.push_back(file + ": " + x + ": " + what); };
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(value);
      } catch (const nlohmann::json::exception&) {
        bad("metadata value is not JSON: " + value);
      }
      Located loc{&f, nullptr, nullptr, nullptr, 1, 0, 0, false};
      if (j.is_object()) {
        for (const char* field : {"bits", "shape", "dtype", "codebook", "scale_exp", "encoder"})
          if (!j.contains(field)) bad(std::string("metadata lacks \"") + field + "\"");
        if (j.contains("bits") && j["bits"].is_number_integer()) ct.bits = j["bits"];
        if (!valid_bits(ct.bits)) bad("bits must be 2, 3, 4 or 5 (got " + j.value("bits", nlohmann::json()).dump() + ")");
        if (j.contains("shape") && j["shape"].is_array()) {
          for (const auto& d : j["shape"])
            if (d.is_number_integer()) ct.shape.push_back(d);
        }
        if ((ct.shape.size() != 2 && ct.shape.size() != 3) || std::any_of(ct.shape.begin(), ct.shape.end(), [](int64_t d) { return d <= 0; }))
          bad("shape must be [N, K] or [E, N, K] of positive sizes (got " + j.value("shape", nlohmann::json()).dump() + ")");
        else if (ct.shape.back() % kBlockSize != 0)
          bad("K = " + std::to_string(ct.shape.back()) + " is not a multiple of 32");
        if (j.contains("scale_exp") && j["scale_exp"].is_number_integer()) ct.scale_exp = j["scale_exp"];
        else bad("scale_exp must be an integer");
        ct.encoder = j.value("encoder", "");
        if (ct.encoder != "search" && ct.encoder != "bnb") bad("encoder must be \"search\" or \"bnb\" (got \"" + ct.encoder + "\")");
        if (ct.encoder == "bnb" && ct.scale_exp != 0) bad("the bnb encoder has scale_exp 0 (got " + std::to_string(ct.scale_exp) + ")");
        ct.codebook = j.value("codebook", "");
        ct.dtype = j.value("dtype", "");
        if (ct.dtype != "BF16" && ct.dtype != "F16" && ct.dtype != "F32" && ct.dtype != "F8_E4M3")
          bad("dtype must be the source dtype BF16, F16, F32 or F8_E4M3 (got \"" + ct.dtype + "\")");
      } else if (!j.is_discarded() && !j.is_null()) {
        bad("metadata value is not a JSON object");
      }
      if (ct.problems.empty()) {
        loc.fused = ct.shape.size() == 3;
        loc.E = loc.fused ? ct.shape[0] : 1;
        loc.N = ct.shape[ct.shape.size() - 2];
        loc.K = ct.shape.back();
        TensorPlan tp;
        tp.bits = ct.bits;
        tp.E = loc.E;
        tp.N = loc.N;
        tp.K = loc.K;
        tp.fused = loc.fused;
        auto need = [&](const std::string& name, const char* dtype, const std::vector<int64_t>& shape) -> const st::TensorInfo* {
          const st::TensorInfo* t = f.find(name);
          if (!t) bad("tensor " + name + " is missing from this shard");
          else if (t->dtype != dtype || t->shape != shape)
            bad("tensor " + name + " must be " + dtype + " " + shape_str(shape) + ", got " + t->dtype + " " + shape_str(t->shape));
          else return t;
          return nullptr;
        };
        loc.packed = need(packed_name(x), "I32", packed_shape(tp));
        loc.absmax = need(absmax_name(x), "U8", absmax_shape(tp));
        loc.codebook = need(codebook_name_of(x), "F32", {codebook_size(ct.bits)});
      }
      if (loc.codebook) {
        const auto cb = copy_out<float>(f, *loc.codebook);
        bool ascending = true;
        for (size_t i = 0; i < cb.size(); ++i) {
          if (!std::isfinite(cb[i])) bad("codebook value " + std::to_string(i) + " is not finite");
          if (i > 0 && !(cb[i - 1] <= cb[i])) ascending = false;
        }
        if (!ascending) bad("codebook values are not ascending");
        if (ct.codebook == "nf" || ct.codebook == "bnf") {
          const Codebook want = builtin_codebook(ct.codebook, ct.bits);
          for (size_t i = 0; i < cb.size(); ++i)
            if (std::ldexp(want.values[i], ct.scale_exp) != cb[i]) {
              bad("codebook value " + std::to_string(i) + " is " + std::to_string(cb[i]) + ", but '" + ct.codebook +
                  "' times 2^" + std::to_string(ct.scale_exp) + " is " + std::to_string(std::ldexp(want.values[i], ct.scale_exp)));
              break;
            }
        }
      }
      if (loc.packed && loc.absmax && loc.K % kTileK == kBlockSize) {
        // K % 64 == 32: the second half of the last K-tile is padding and must be zero (FORMAT §5).
        const auto packed = copy_out<uint32_t>(f, *loc.packed);
        const auto absmax = copy_out<uint8_t>(f, *loc.absmax);
        const int64_t kb = k_blocks(loc.K);  // the first block past the end
        int64_t bad_rows = 0;
        for (int64_t e = 0; e < loc.E; ++e)
          for (int64_t n = 0; n < loc.N; ++n) {
            bool nonzero = absmax[size_t(e * tiled_absmax_bytes(loc.N, loc.K) + tiled_absmax_offset(n, kb, loc.N))] != 0;
            for (int b = 0; b < ct.bits; ++b)
              nonzero = nonzero || packed[size_t(e * tiled_words(loc.N, loc.K, ct.bits) + tiled_word_offset(n, kb, b, loc.N, ct.bits))] != 0;
            bad_rows += nonzero;
          }
        if (bad_rows) bad(std::to_string(bad_rows) + " rows have non-zero padding past K (block " + std::to_string(kb) + ")");
      }
      for (const auto* t : {loc.packed, loc.absmax, loc.codebook})
        if (t) kbit_tensor_names.insert(t->name);
      if (ct.problems.empty()) quantized[x] = loc;
      r.problems.insert(r.problems.end(), ct.problems.begin(), ct.problems.end());
      r.tensors.push_back(std::move(ct));
    }
    for (const st::TensorInfo& t : f.tensors())
      for (const char* suffix : {".kbit_packed", ".kbit_absmax", ".kbit_codebook"})
        if (ends_with(t.name, suffix) && !kbit_tensor_names.count(t.name))
          r.problems.push_back(file + ": tensor " + t.name + " has no valid \"kbit." +
                               t.name.substr(0, t.name.size() - std::strlen(suffix)) + "\" metadata entry");
  }

  // Against the source: error, re-encoding, copied bytes, nothing missing.
  if (opt.source) {
    const Source src = open_source(*opt.source);
    const ModelInfo model = ModelInfo::from_config(src.config);
    size_t done = 0;
    const size_t total = src.tensors().size();
    std::set<std::string> consumed;
    for (CheckedTensor& ct : r.tensors) {
      const auto it = quantized.find(ct.name);
      if (it == quantized.end()) continue;
      const Located& loc = it->second;
      if (progress) progress(++done, total, ct.name);
      auto bad = [&](const std::string& what) {
        ct.problems.push_back(ct.name + ": " + what);
        r.problems.push_back(ct.problems.back());
      };
      const auto sloc = src.checkpoint.find(ct.name);
      if (!sloc.file) {
        bad("not in the source " + opt.source->string());
        continue;
      }
      if (sloc.info->dtype != ct.dtype || sloc.info->shape != ct.shape) {
        bad("metadata says " + ct.dtype + " " + shape_str(ct.shape) + " but the source tensor is " + sloc.info->dtype +
            " " + shape_str(sloc.info->shape));
        continue;
      }
      TensorPlan tp;
      tp.src = {ct.name, sloc.info->dtype, sloc.info->shape, sloc.info->nbytes()};
      tp.bits = ct.bits;
      tp.E = loc.E;
      tp.N = loc.N;
      tp.K = loc.K;
      tp.fused = loc.fused;
      if (ct.dtype == "F8_E4M3") {
        tp.fp8_scale = ct.name + "_scale_inv";
        consumed.insert(tp.fp8_scale);
      }
      try {
        const LoadedTensor lt = load_for_quantize(src, tp, model);
        const auto packed = copy_out<uint32_t>(*loc.file, *loc.packed);
        const auto absmax = copy_out<uint8_t>(*loc.file, *loc.absmax);
        const auto cb = copy_out<float>(*loc.file, *loc.codebook);
        const TiledView view{packed.data(), absmax.data(), cb.data(), ct.bits, loc.E, loc.N, loc.K};
        ct.err = dequant_error(view, lt.view, opt.threads);
        ct.compared = true;
        ct.max_nmse = opt.max_nmse ? *opt.max_nmse : default_max_nmse(ct.bits);
        if (ct.err.nonfinite) bad("dequantized values are not finite");
        if (!(ct.err.nmse() <= ct.max_nmse))
          bad("NMSE " + std::to_string(ct.err.nmse()) + " exceeds " + std::to_string(ct.max_nmse) + " (SQNR " +
              std::to_string(ct.err.sqnr_db()) + " dB; worst element expert " + std::to_string(ct.err.worst_e) + " row " +
              std::to_string(ct.err.worst_n) + " column " + std::to_string(ct.err.worst_k) + ", abs error " +
              std::to_string(ct.err.max_abs_err) + ")");
        if (opt.reencode) {
          Codebook book;
          if (ct.codebook == "nf" || ct.codebook == "bnf") {
            book = builtin_codebook(ct.codebook, ct.bits);
          } else {
            book.name = ct.codebook;
            book.bits = ct.bits;
            for (float v : cb) book.values.push_back(std::ldexp(v, -ct.scale_exp));
          }
          QuantizeOptions qo;
          qo.encoder = parse_encoder(ct.encoder);
          qo.threads = opt.threads;
          if (qo.encoder == Encoder::search) qo.scale_exp = ct.scale_exp;
          const QuantizedTensor q = quantize_tensor(ct.name, lt.view, book, qo);
          int64_t word_diff = 0, absmax_diff = 0, first_word = -1, first_absmax = -1;
          for (size_t i = 0; i < packed.size(); ++i)
            if (packed[i] != q.packed[i]) {
              if (first_word < 0) first_word = int64_t(i);
              ++word_diff;
            }
          for (size_t i = 0; i < absmax.size(); ++i)
            if (absmax[i] != q.absmax[i]) {
              if (first_absmax < 0) first_absmax = int64_t(i);
              ++absmax_diff;
            }
          if (word_diff)
            bad(std::to_string(word_diff) + " packed words differ from re-encoding the source; first at " +
                word_where(first_word, loc.N, loc.K, ct.bits) + " (stored 0x" + [&] {
                  char b[16];
                  std::snprintf(b, sizeof b, "%08x", packed[size_t(first_word)]);
                  return std::string(b);
                }() + ", expected 0x" + [&] {
                  char b[16];
                  std::snprintf(b, sizeof b, "%08x", q.packed[size_t(first_word)]);
                  return std::string(b);
                }() + ")");
          if (absmax_diff)
            bad(std::to_string(absmax_diff) + " absmax bytes differ from re-encoding the source; first at " +
                absmax_where(first_absmax, loc.N, loc.K) + " (stored " + std::to_string(absmax[size_t(first_absmax)]) +
                ", expected " + std::to_string(q.absmax[size_t(first_absmax)]) + ")");
          if (q.codebook_stored != cb) bad("the stored codebook differs from the codebook times 2^scale_exp");
          ct.reencoded_identical = word_diff == 0 && absmax_diff == 0 && q.codebook_stored == cb;
        }
        release_source(src, tp);
      } catch (const Error& e) {
        bad(std::string("cannot compare with the source: ") + e.what());
      }
    }
    // Copied tensors and completeness.
    std::set<std::string> output_names;
    for (const st::File& f : out->shards())
      for (const st::TensorInfo& t : f.tensors()) {
        output_names.insert(t.name);
        if (kbit_tensor_names.count(t.name)) continue;
        if (progress) progress(++done, total, t.name);
        const auto s = src.checkpoint.find(t.name);
        ++r.copied_checked;
        if (!s.file) {
          r.problems.push_back(f.path().filename().string() + ": tensor " + t.name + " is not in the source");
          continue;
        }
        if (s.info->dtype != t.dtype || s.info->shape != t.shape) {
          r.problems.push_back(t.name + ": copied as " + t.dtype + " " + shape_str(t.shape) + " but the source has " +
                               s.info->dtype + " " + shape_str(s.info->shape));
          continue;
        }
        const auto a = f.bytes(t), b = s.file->bytes(*s.info);
        size_t first = a.size();
        for (size_t off = 0; off < a.size() && first == a.size(); off += size_t(64) << 20) {
          const size_t n = std::min(a.size() - off, size_t(64) << 20);
          if (std::memcmp(a.data() + off, b.data() + off, n) != 0)
            for (size_t i = off; i < off + n; ++i)
              if (a[i] != b[i]) {
                first = i;
                break;
              }
        }
        f.release(t);
        s.file->release(*s.info);
        if (first != a.size())
          r.problems.push_back(t.name + ": copied tensor differs from the source (first at byte " + std::to_string(first) + ")");
        else
          ++r.copied_identical;
      }
    for (const auto& name : src.checkpoint.names())
      if (!output_names.count(name) && !quantized.count(name) && !consumed.count(name))
        r.problems.push_back(name + ": in the source but neither quantized nor copied into the output");
  } else {
    r.notes.push_back("no --source: the error against the source, re-encoding and copied bytes were not checked");
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

nlohmann::ordered_json check_json(const CheckResult& r, const CheckOptions& opt) {
  nlohmann::ordered_json j;
  j["tool"] = "kbit-quantize check " KBIT_VERSION_STRING;
  j["output"] = opt.output.string();
  j["source"] = opt.source ? nlohmann::ordered_json(opt.source->string()) : nlohmann::ordered_json();
  j["pass"] = r.ok();
  j["problems"] = r.problems;
  j["notes"] = r.notes;
  j["copied_checked"] = r.copied_checked;
  j["copied_identical"] = r.copied_identical;
  std::vector<const CheckedTensor*> sorted;
  for (const auto& t : r.tensors) sorted.push_back(&t);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto a, auto b) { return a->err.nmse() > b->err.nmse(); });
  nlohmann::ordered_json ts = nlohmann::ordered_json::array();
  for (const CheckedTensor* t : sorted) {
    nlohmann::ordered_json e = {{"name", t->name}, {"bits", t->bits}, {"shape", t->shape}, {"dtype", t->dtype},
                                {"encoder", t->encoder}, {"codebook", t->codebook}, {"scale_exp", t->scale_exp},
                                {"ok", t->problems.empty()}};
    if (t->compared) {
      const double nmse = t->err.nmse(), db = t->err.sqnr_db();
      e["nmse"] = std::isfinite(nmse) ? nlohmann::ordered_json(nmse) : nlohmann::ordered_json();
      e["sqnr_db"] = std::isfinite(db) ? nlohmann::ordered_json(db) : nlohmann::ordered_json();
      e["max_abs_err"] = t->err.max_abs_err;
      e["max_nmse"] = t->max_nmse;
      e["reencoded_identical"] = t->reencoded_identical;
    }
    ts.push_back(e);
  }
  j["tensors"] = ts;
  j["wall_s"] = r.wall_s;
  return j;
}

}  // namespace kbit
