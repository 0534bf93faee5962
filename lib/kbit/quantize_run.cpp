#include "kbit/quantize_run.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "kbit/fp8.h"
#include "kbit/parallel.h"
#include "reference/dequantize.h"

namespace fs = std::filesystem;

namespace kbit {
namespace {

constexpr const char* kJobFile = "job.json";
constexpr size_t kCopyChunk = size_t(64) << 20;  // copied tensors stream through in 64 MiB pieces

std::string shape_str(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

DType dtype_of(const std::string& s) {
  if (s == "BF16") return DType::BF16;
  if (s == "F16") return DType::F16;
  if (s == "F32") return DType::F32;
  throw Error("dtype " + s + " cannot be read as a float weight");
}

// Errors while writing the output are exit 4; input errors thrown meanwhile stay what they are.
template <class F>
auto io(const std::string& what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const IoError&) {
    throw;
  } catch (const fs::filesystem_error& e) {
    throw IoError(what + ": " + e.what());
  } catch (const Error& e) {
    throw IoError(what + ": " + e.what());
  }
}

// 64-bit content hash of the tensor bytes of a shard, streamed in pieces of any size (the resume
// check: a shard recorded as finished must still hold exactly what was written).
class Hasher {
 public:
  void update(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    while (n > 0 && fill_ > 0 && fill_ < 8) {
      tail_[fill_++] = *p++;
      --n;
      if (fill_ == 8) {
        mix(load(tail_));
        fill_ = 0;
      }
    }
    while (n >= 8) {
      mix(load(p));
      p += 8;
      n -= 8;
    }
    while (n > 0) {
      tail_[fill_++] = *p++;
      --n;
    }
  }
  std::string hex() {
    uint64_t h = h_;
    for (int i = 0; i < fill_; ++i) h = (h ^ tail_[i]) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)h);
    return buf;
  }

 private:
  static uint64_t load(const unsigned char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  void mix(uint64_t w) {
    h_ ^= w * 0x9e3779b97f4a7c15ull;
    h_ = ((h_ << 31) | (h_ >> 33)) * 0xc2b2ae3d27d4eb4full;
  }
  uint64_t h_ = 0x243f6a8885a308d3ull;
  unsigned char tail_[8] = {};
  int fill_ = 0;
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw Error(p.string() + ": cannot open it");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void fsync_path(const fs::path& p, bool directory) {
  const int fd = ::open(p.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) throw IoError(p.string() + ": cannot open it to fsync: " + std::strerror(errno));
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) throw IoError(p.string() + ": fsync failed: " + std::strerror(errno));
}

bool is_weight_file(const std::string& fname) {
  for (const char* ext : {".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".gguf", ".h5", ".msgpack", ".onnx", ".onnx_data"})
    if (fname.size() >= std::strlen(ext) && fname.compare(fname.size() - std::strlen(ext), std::strlen(ext), ext) == 0)
      return true;
  return fname == st::kIndexName;
}

nlohmann::ordered_json job_identity(const Source& src, const RunOptions& opt, const Plan& plan,
                                    const std::map<int, Codebook>& codebooks) {
  nlohmann::ordered_json id;
  id["tool"] = "kbit-quantize " KBIT_VERSION_STRING;
  id["source"] = fs::absolute(src.root).lexically_normal().string();
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const st::File& f : src.checkpoint.shards()) {
    std::error_code ec;
    const auto mtime = fs::last_write_time(f.path(), ec).time_since_epoch().count();
    files.push_back({{"file", f.path().filename().string()}, {"bytes", fs::file_size(f.path(), ec)}, {"mtime", mtime}});
  }
  id["source_files"] = files;
  nlohmann::ordered_json o;
  o["bits"] = opt.plan.bits;
  nlohmann::ordered_json bf = nlohmann::ordered_json::array();
  for (const auto& b : opt.plan.bits_for) bf.push_back({b.pattern, b.bits});
  o["bits_for"] = bf;
  o["include"] = opt.plan.include;
  o["exclude"] = opt.plan.exclude;
  o["include_lm_head"] = opt.plan.include_lm_head;
  o["codebook"] = opt.plan.codebook;
  for (const auto& [k, cb] : codebooks) o["codebook_values_k" + std::to_string(k)] = cb.values;
  o["encoder"] = encoder_name(opt.plan.encoder);
  o["max_shard_bytes"] = opt.plan.max_shard_bytes;
  id["options"] = o;
  nlohmann::ordered_json shards = nlohmann::ordered_json::array();
  for (const auto& s : plan.shards) shards.push_back(s.file);
  id["shards"] = shards;
  return id;
}

// The first key whose value differs between two identities, for the resume refusal message.
std::string first_difference(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b, const std::string& at = "") {
  if (a.is_object() && b.is_object()) {
    for (const auto& [k, v] : a.items()) {
      if (!b.contains(k)) return at + k;
      const std::string d = first_difference(v, b[k], at + k + ".");
      if (!d.empty()) return d;
    }
    for (const auto& [k, v] : b.items())
      if (!a.contains(k)) return at + k;
    return "";
  }
  return a == b ? "" : (at.empty() ? std::string("(root)") : at.substr(0, at.size() - 1));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Source

std::vector<SourceTensor> Source::tensors() const {
  std::vector<SourceTensor> out;
  for (const st::File& f : checkpoint.shards())
    for (const st::TensorInfo& t : f.tensors()) out.push_back({t.name, t.dtype, t.shape, t.nbytes()});
  return out;
}

Source open_source(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error(path.string() + ": does not exist (give a checkpoint directory or a .safetensors file)");
  Source s{st::Checkpoint::open(path), nlohmann::ordered_json::object(), false, false, {}};
  s.root = s.checkpoint.root();
  s.is_dir = fs::is_directory(path, ec) || path.filename().string().ends_with(".index.json");
  if (s.is_dir && fs::exists(s.root / "config.json", ec)) {
    try {
      s.config = nlohmann::ordered_json::parse(read_text(s.root / "config.json"));
    } catch (const nlohmann::json::exception& e) {
      throw Error((s.root / "config.json").string() + ": not valid JSON (" + e.what() + ")");
    }
    if (!s.config.is_object()) throw Error((s.root / "config.json").string() + ": not a JSON object");
    s.has_config = true;
  }
  return s;
}

LoadedTensor load_for_quantize(const Source& src, const TensorPlan& t, const ModelInfo& model) {
  const auto loc = src.checkpoint.find(t.src.name);
  if (!loc.file) throw Error("tensor '" + t.src.name + "' vanished from the source");
  const auto bytes = loc.file->bytes(*loc.info);
  LoadedTensor out;
  out.view.E = t.E;
  out.view.N = t.N;
  out.view.K = t.K;
  out.view.fused = t.fused;
  if (t.src.dtype == "F8_E4M3") {
    if (t.fused)
      throw Error("tensor '" + t.src.name + "': fused 3-D F8_E4M3 experts are not supported; --exclude them");
    const auto sloc = src.checkpoint.find(t.fp8_scale);
    if (!sloc.file) throw Error("tensor '" + t.src.name + "': its block scale '" + t.fp8_scale + "' is missing");
    const int64_t bn = model.fp8_block[0], bk = model.fp8_block[1];
    const std::vector<int64_t> want = {(t.N + bn - 1) / bn, (t.K + bk - 1) / bk};
    if (sloc.info->dtype != "F32" || sloc.info->shape != want)
      throw Error("tensor '" + t.fp8_scale + "': block scale of '" + t.src.name + "' " + shape_str(t.src.shape) +
                  " must be F32 " + shape_str(want) + " (blocks of " + std::to_string(bn) + "x" + std::to_string(bk) +
                  ", config quantization_config.weight_block_size), got " + sloc.info->dtype + " " +
                  shape_str(sloc.info->shape));
    const auto sb = sloc.file->bytes(*sloc.info);
    std::vector<float> scale(size_t(want[0] * want[1]));
    std::memcpy(scale.data(), sb.data(), scale.size() * 4);
    out.f32.resize(size_t(t.N * t.K));
    const auto* q = reinterpret_cast<const uint8_t*>(bytes.data());
    parallel_for(t.N, 0, [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; ++n)
        for (int64_t k = 0; k < t.K; ++k)
          out.f32[size_t(n * t.K + k)] = fp8_e4m3_to_f32(q[n * t.K + k]) * scale[size_t((n / bn) * want[1] + k / bk)];
    });
    out.view.data = out.f32.data();
    out.view.dtype = DType::F32;
    return out;
  }
  out.view.dtype = dtype_of(t.src.dtype);
  const size_t esize = size_t(dtype_size(out.view.dtype));
  if (reinterpret_cast<uintptr_t>(bytes.data()) % esize != 0) {
    // A writer that did not align its tensors: convert once into an aligned buffer.
    out.f32.resize(bytes.size() / esize);
    std::vector<std::byte> tmp(bytes.begin(), bytes.end());
    to_f32(out.view.dtype, tmp.data(), out.f32.data(), int64_t(out.f32.size()));
    out.view.data = out.f32.data();
    out.view.dtype = DType::F32;
  } else {
    out.view.data = bytes.data();
  }
  return out;
}

void release_source(const Source& src, const TensorPlan& t) {
  const auto loc = src.checkpoint.find(t.src.name);
  if (loc.file) loc.file->release(*loc.info);
  if (!t.fp8_scale.empty())
    if (const auto s = src.checkpoint.find(t.fp8_scale); s.file) s.file->release(*s.info);
}

// ---------------------------------------------------------------------------------------------
// Error statistics

double ErrorStats::nmse() const {
  if (sum_sq_ref == 0) return sum_sq_err == 0 ? 0.0 : INFINITY;
  return sum_sq_err / sum_sq_ref;
}
double ErrorStats::sqnr_db() const {
  const double e = nmse();
  return e == 0 ? INFINITY : -10.0 * std::log10(e);
}

ErrorStats dequant_error(const TiledView& q, const TensorView& w, int threads) {
  ErrorStats total;
  std::mutex m;
  parallel_for(w.E * w.N, threads, [&](int64_t r0, int64_t r1) {
    std::vector<float> ref(size_t(w.K)), got(size_t(w.K));
    ErrorStats local;
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t e = r / w.N, n = r % w.N;
      to_f32(w.dtype, static_cast<const char*>(w.data) + r * w.K * dtype_size(w.dtype), ref.data(), w.K);
      dequantize_row_ref(q, e, n, got.data());
      for (int64_t k = 0; k < w.K; ++k) {
        const double a = ref[size_t(k)], b = got[size_t(k)], d = std::fabs(a - b);
        local.sum_sq_ref += a * a;
        local.sum_sq_err += d * d;
        if (!std::isfinite(b)) local.nonfinite = true;
        if (d > local.max_abs_err) {
          local.max_abs_err = d;
          local.worst_e = e;
          local.worst_n = n;
          local.worst_k = k;
        }
      }
    }
    std::lock_guard<std::mutex> lock(m);
    total.sum_sq_ref += local.sum_sq_ref;
    total.sum_sq_err += local.sum_sq_err;
    total.nonfinite = total.nonfinite || local.nonfinite;
    if (local.max_abs_err > total.max_abs_err) {
      total.max_abs_err = local.max_abs_err;
      total.worst_e = local.worst_e;
      total.worst_n = local.worst_n;
      total.worst_k = local.worst_k;
    }
  });
  return total;
}

// ---------------------------------------------------------------------------------------------
// The run

fs::path partial_dir(const fs::path& output) {
  fs::path out = fs::absolute(output).lexically_normal();
  if (out.filename().empty()) out = out.parent_path();
  return out.parent_path() / (out.filename().string() + ".kbit-partial");
}

RunResult run_quantize(const RunOptions& opt, const ProgressFn& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  RunResult r;
  Source src = open_source(opt.source);
  const ModelInfo model = ModelInfo::from_config(src.config);
  r.plan = make_plan(src.tensors(), model, opt.plan);
  const Plan& plan = r.plan;
  r.warnings = src.checkpoint.warnings();
  r.warnings.insert(r.warnings.end(), plan.warnings.begin(), plan.warnings.end());
  if (!src.has_config && src.is_dir)
    r.warnings.push_back("no config.json in " + src.root.string() +
                         ": the output has no quantization_config (shard metadata still describes every tensor)");
  if (plan.count(Action::quantize) == 0) r.warnings.push_back("WARNING: no tensor is quantized (see the skipped list)");

  std::map<int, Codebook> codebooks;
  for (const TensorPlan& t : plan.tensors)
    if (t.action == Action::quantize && !codebooks.count(t.bits))
      codebooks.emplace(t.bits, resolve_codebook(opt.plan.codebook, t.bits));

  fs::path out = fs::absolute(opt.output).lexically_normal();
  if (out.filename().empty()) out = out.parent_path();
  r.output = out;
  if (opt.dry_run) {
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

  // --- Output directory state ------------------------------------------------------------
  const fs::path src_root = fs::absolute(src.root).lexically_normal();
  if (out == src_root || (src.is_dir && src_root.string().starts_with(out.string() + "/")))
    throw UsageError("output " + out.string() + " is the source directory or contains it; choose another directory");
  const fs::path partial = partial_dir(out);
  std::error_code ec;
  const bool out_exists = fs::exists(out, ec);
  const bool out_nonempty = out_exists && (!fs::is_directory(out, ec) || !fs::is_empty(out, ec));
  const bool partial_exists = fs::exists(partial, ec);
  if (opt.resume && out_nonempty && !partial_exists) {
    r.already_complete = true;
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }
  if (out_nonempty && !opt.overwrite && !opt.resume)
    throw UsageError("output " + out.string() + " already exists; pass --overwrite to replace it (or choose another directory)");

  nlohmann::ordered_json identity = job_identity(src, opt, plan, codebooks);
  nlohmann::ordered_json done = nlohmann::ordered_json::object();
  if (partial_exists) {
    if (opt.resume) {
      nlohmann::ordered_json job;
      try {
        job = nlohmann::ordered_json::parse(read_text(partial / kJobFile));
      } catch (const std::exception& e) {
        throw UsageError(partial.string() + " holds no readable " + kJobFile + " (" + e.what() +
                         "); remove it or pass --overwrite to start over");
      }
      const std::string diff = first_difference(job.value("identity", nlohmann::ordered_json()), identity);
      if (!diff.empty())
        throw UsageError("cannot resume " + partial.string() + ": it was started with a different '" + diff +
                         "' (source or options changed); pass the same options, or --overwrite to start over");
      done = job.value("done", nlohmann::ordered_json::object());
    } else if (opt.overwrite) {
      io("removing " + partial.string(), [&] { fs::remove_all(partial); });
    } else {
      throw UsageError("found " + partial.string() + " from an interrupted run; pass --resume to continue it or "
                       "--overwrite to start over");
    }
  }
  io("creating " + partial.string(), [&] {
    fs::create_directories(partial);
    for (const auto& e : fs::directory_iterator(partial)) {  // temporaries of a killed run
      const std::string f = e.path().filename().string();
      if (f.starts_with(".") && f.find(".tmp-") != std::string::npos) fs::remove(e.path());
    }
  });
  auto save_job = [&] {
    nlohmann::ordered_json job;
    job["identity"] = identity;
    job["done"] = done;
    io("writing " + (partial / kJobFile).string(), [&] { st::write_text_atomic(partial / kJobFile, job.dump(2) + "\n"); });
  };
  save_job();

  // --- Shards --------------------------------------------------------------------------------
  std::map<std::string, size_t> group_index;
  for (size_t g = 0; g < plan.groups.size(); ++g) group_index[plan.groups[g].first] = g;
  std::map<std::string, int> group_scale;
  auto scale_of = [&](const TensorPlan& t) {
    if (opt.plan.encoder == Encoder::bnb) return 0;
    if (auto it = group_scale.find(t.group); it != group_scale.end()) return it->second;
    float amax = 0;  // FORMAT §6: the max amax over every expert of the group, then one s
    for (size_t m : plan.groups[group_index.at(t.group)].second) {
      const TensorPlan& member = plan.tensors[m];
      const LoadedTensor lt = load_for_quantize(src, member, model);
      amax = std::max(amax, tensor_absmax(member.src.name, lt.view, opt.threads));
      release_source(src, member);
    }
    return group_scale[t.group] = choose_scale_exp(amax);
  };

  ProgressEvent ev;
  for (const TensorPlan& t : plan.tensors)
    if (t.action != Action::drop) {
      ++ev.total;
      ev.bytes_total += t.src.nbytes;
    }
  int64_t written_outputs = 0;
  auto injected = [&] {
    if (opt.fail_after < 0 || ++written_outputs <= opt.fail_after) return;
    if (opt.fail_hard) ::_exit(70);
    throw IoError("injected failure after " + std::to_string(opt.fail_after) + " output tensors (test hook)");
  };

  for (const OutShard& shard : plan.shards) {
    const fs::path path = partial / shard.file;
    // A shard recorded as finished is kept only if it still checks out.
    if (done.contains(shard.file)) {
      std::string problem;
      try {
        const st::File f = st::File::open(path);
        if (fs::file_size(path) != done[shard.file].value("bytes", uint64_t(0))) problem = "size differs from the record";
        if (problem.empty() && f.tensors().size() != shard.tensors.size()) problem = "tensor count differs from the plan";
        Hasher h;
        for (const OutTensor& o : shard.tensors) {
          if (!problem.empty()) break;
          const st::TensorInfo* ti = f.find(o.name);
          if (!ti || ti->dtype != o.dtype || ti->shape != o.shape) {
            problem = "tensor '" + o.name + "' is missing or has another dtype/shape";
            break;
          }
          const auto b = f.bytes(*ti);
          h.update(b.data(), b.size());
          f.release(*ti);
        }
        if (problem.empty() && h.hex() != done[shard.file].value("hash", "")) problem = "content hash differs from the record";
        if (problem.empty() && f.header().metadata.count("kbit.version") == 0) problem = "no kbit.version metadata";
      } catch (const std::exception& e) {
        problem = e.what();
      }
      if (problem.empty()) {
        r.shards_resumed.push_back(shard.file);
        for (const OutTensor& o : shard.tensors)
          if (o.kind == OutKind::copy || o.kind == OutKind::packed) {
            ++ev.done;
            ev.bytes_done += plan.tensors[o.source].src.nbytes;
          }
        ev.name = shard.file;
        ev.quantized = nullptr;
        ev.resumed_shard = true;
        if (progress) progress(ev);
        ev.resumed_shard = false;
        continue;
      }
      r.warnings.push_back("resume: " + shard.file + " failed its check (" + problem + "); writing it again");
      done.erase(shard.file);
      save_job();
    }

    std::map<std::string, std::string> metadata = {{"format", "pt"}, {"kbit.version", std::to_string(kFormatVersion)}};
    std::map<size_t, int> scale;  // source index -> s
    for (const OutTensor& o : shard.tensors)
      if (o.kind == OutKind::packed) {
        const TensorPlan& t = plan.tensors[o.source];
        scale[o.source] = scale_of(t);
        metadata["kbit." + t.src.name] =
            kbit_metadata_value(t, codebooks.at(t.bits).name, scale[o.source], opt.plan.encoder);
      }
    std::vector<st::Writer::Entry> entries;
    for (const OutTensor& o : shard.tensors) entries.push_back({o.name, o.dtype, o.shape});
    st::Writer writer = io("creating " + path.string(), [&] { return st::Writer(path, entries, metadata); });
    Hasher hash;
    auto put = [&](const std::string& name, const void* p, size_t n) {
      io("writing " + path.string(), [&] { writer.write(name, p, n); });
      hash.update(p, n);
    };
    std::map<size_t, std::vector<uint8_t>> absmax_stash;  // U8 tensors go last (alignment order)
    std::map<size_t, std::vector<float>> codebook_stash;
    for (const OutTensor& o : shard.tensors) {
      const TensorPlan& t = plan.tensors[o.source];
      switch (o.kind) {
        case OutKind::copy: {
          const auto loc = src.checkpoint.find(t.src.name);
          const auto bytes = loc.file->bytes(*loc.info);
          for (size_t off = 0; off < bytes.size(); off += kCopyChunk) {
            put(o.name, bytes.data() + off, std::min(kCopyChunk, bytes.size() - off));
            loc.file->release(*loc.info);
          }
          if (bytes.empty()) put(o.name, nullptr, 0);
          ++ev.done;
          ev.bytes_done += t.src.nbytes;
          ev.name = t.src.name;
          ev.quantized = nullptr;
          if (progress) progress(ev);
          break;
        }
        case OutKind::packed: {
          const LoadedTensor lt = load_for_quantize(src, t, model);
          QuantizeOptions qo;
          qo.encoder = opt.plan.encoder;
          qo.threads = opt.threads;
          if (opt.plan.encoder == Encoder::search) qo.scale_exp = scale.at(o.source);
          QuantizedTensor q = quantize_tensor(t.src.name, lt.view, codebooks.at(t.bits), qo);
          TensorResult tr;
          tr.name = t.src.name;
          tr.bits = t.bits;
          tr.scale_exp = q.scale_exp;
          tr.shape = t.src.shape;
          tr.dtype = t.src.dtype;
          tr.numel = t.E * t.N * t.K;
          tr.err = dequant_error(q.view(), lt.view, opt.threads);
          put(o.name, q.packed.data(), q.packed.size() * 4);
          release_source(src, t);
          absmax_stash[o.source] = std::move(q.absmax);
          codebook_stash[o.source] = std::move(q.codebook_stored);
          r.quantized.push_back(std::move(tr));
          ++ev.done;
          ev.bytes_done += t.src.nbytes;
          ev.name = t.src.name;
          ev.quantized = &r.quantized.back();
          if (progress) progress(ev);
          break;
        }
        case OutKind::codebook: {
          const auto& cb = codebook_stash.at(o.source);
          put(o.name, cb.data(), cb.size() * 4);
          codebook_stash.erase(o.source);
          break;
        }
        case OutKind::absmax: {
          const auto& a = absmax_stash.at(o.source);
          put(o.name, a.data(), a.size());
          absmax_stash.erase(o.source);
          break;
        }
      }
      injected();
    }
    io("committing " + path.string(), [&] { writer.commit(); });
    done[shard.file] = {{"bytes", writer.file_size()}, {"hash", hash.hex()}};
    save_job();
  }

  // --- Index, other files, config.json last, then the rename --------------------------------
  if (plan.shards.size() > 1) {
    std::map<std::string, std::string> weight_map;
    for (const auto& s : plan.shards)
      for (const auto& t : s.tensors) weight_map[t.name] = s.file;
    io("writing the index", [&] { st::write_index(partial, weight_map, plan.out_bytes); });
  }
  if (src.is_dir) {
    io("copying the other files of " + src.root.string(), [&] {
      const fs::path old = out.parent_path() / (out.filename().string() + ".kbit-old");
      std::set<fs::path> own_files = {src_root / st::kIndexName};  // the checkpoint's own shards
      for (const st::File& f : src.checkpoint.shards()) own_files.insert(fs::absolute(f.path()).lexically_normal());
      for (auto it = fs::recursive_directory_iterator(src.root); it != fs::recursive_directory_iterator(); ++it) {
        const fs::path p = fs::absolute(it->path()).lexically_normal();
        const std::string fname = p.filename().string();
        const fs::path rel = p.lexically_relative(src_root);
        if (fname.starts_with(".") || p == out || p == partial || p == old) {
          if (it->is_directory()) it.disable_recursion_pending();
          continue;
        }
        if (it->is_directory()) {
          fs::create_directories(partial / rel);
          continue;
        }
        if (!it->is_regular_file()) continue;
        if (rel == "config.json") continue;
        if (is_weight_file(fname)) {
          if (!own_files.count(p)) r.skipped_files.push_back(rel.string());
          continue;
        }
        fs::copy_file(p, partial / rel, fs::copy_options::overwrite_existing);
        fsync_path(partial / rel, false);
        r.copied_files.push_back(rel.string());
      }
    });
  }
  if (src.has_config)
    io("writing config.json", [&] {
      st::write_text_atomic(partial / "config.json", quantized_config(src.config, plan, opt.plan).dump(2) + "\n");
    });
  io("finishing " + partial.string(), [&] {
    fs::remove(partial / kJobFile);
    fsync_path(partial, true);
    if (fs::exists(out)) {
      if (fs::is_directory(out) && fs::is_empty(out)) {
        fs::remove(out);
      } else {
        const fs::path old = out.parent_path() / (out.filename().string() + ".kbit-old");
        fs::remove_all(old);
        fs::rename(out, old);
        fs::rename(partial, out);
        fs::remove_all(old);
        fsync_path(out.parent_path(), true);
        return;
      }
    }
    fs::rename(partial, out);
    fsync_path(out.parent_path(), true);
  });
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// ---------------------------------------------------------------------------------------------
// Summary

namespace {
nlohmann::ordered_json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); }
}  // namespace

nlohmann::ordered_json summary_json(const RunResult& r, const RunOptions& opt) {
  const Plan& p = r.plan;
  nlohmann::ordered_json j;
  j["tool"] = "kbit-quantize " KBIT_VERSION_STRING;
  j["source"] = opt.source.string();
  j["output"] = r.output.string();
  j["dry_run"] = opt.dry_run;
  j["already_complete"] = r.already_complete;
  j["options"] = {{"bits", opt.plan.bits}, {"codebook", opt.plan.codebook}, {"encoder", encoder_name(opt.plan.encoder)},
                  {"max_shard_bytes", opt.plan.max_shard_bytes}, {"threads", resolve_threads(opt.threads)}};
  if (!opt.plan.bits_for.empty()) {
    nlohmann::ordered_json bf = nlohmann::ordered_json::array();
    for (const auto& b : opt.plan.bits_for) bf.push_back({{"pattern", b.pattern}, {"bits", b.bits}});
    j["options"]["bits_for"] = bf;
  }
  int64_t total_elems = 0;
  for (const auto& t : p.tensors) {
    if (t.action == Action::drop) continue;
    int64_t n = 1;
    for (int64_t d : t.src.shape) n *= d;
    total_elems += n;
  }
  j["counts"] = {{"tensors", p.tensors.size()}, {"quantized", p.count(Action::quantize)},
                 {"copied", p.count(Action::copy)}, {"consumed", p.count(Action::drop)},
                 {"expert_groups", std::count_if(p.groups.begin(), p.groups.end(), [](const auto& g) { return g.second.size() > 1; })}};
  j["sizes"] = {{"source_bytes", p.in_bytes},
                {"output_bytes", p.out_bytes},
                {"quantized_weights", p.quantized_weights},
                {"bits_per_weight_quantized",
                 p.quantized_weights ? 8.0 * double(p.quantized_out_bytes) / double(p.quantized_weights) : 0.0},
                {"bits_per_parameter_total", total_elems ? 8.0 * double(p.out_bytes) / double(total_elems) : 0.0}};
  nlohmann::ordered_json by_cat = nlohmann::ordered_json::object();
  nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
  for (const auto& t : p.tensors)
    if (t.action != Action::quantize) {
      by_cat[t.category] = by_cat.value(t.category, 0) + 1;
      skipped.push_back({{"name", t.src.name}, {"dtype", t.src.dtype}, {"shape", t.src.shape},
                         {"category", t.category}, {"reason", t.reason},
                         {"action", t.action == Action::drop ? "consumed" : "copied"}});
    }
  j["skipped_by_category"] = by_cat;
  j["skipped"] = skipped;
  std::vector<const TensorResult*> sorted;
  for (const auto& t : r.quantized) sorted.push_back(&t);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto a, auto b) { return a->err.nmse() > b->err.nmse(); });
  nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
  for (const TensorResult* t : sorted)
    tensors.push_back({{"name", t->name}, {"bits", t->bits}, {"scale_exp", t->scale_exp}, {"shape", t->shape},
                       {"dtype", t->dtype}, {"sqnr_db", finite_or_null(t->err.sqnr_db())},
                       {"nmse", finite_or_null(t->err.nmse())}, {"max_abs_err", t->err.max_abs_err}});
  j["quantized_tensors"] = tensors;
  nlohmann::ordered_json plan_q = nlohmann::ordered_json::array();
  if (opt.dry_run)
    for (const auto& t : p.tensors)
      if (t.action == Action::quantize)
        plan_q.push_back({{"name", t.src.name}, {"bits", t.bits}, {"shape", t.src.shape}, {"dtype", t.src.dtype},
                          {"group", t.group}, {"out_bytes", t.out_bytes}});
  if (opt.dry_run) j["to_quantize"] = plan_q;
  nlohmann::ordered_json shards = nlohmann::ordered_json::array();
  for (const auto& s : p.shards)
    shards.push_back({{"file", s.file}, {"bytes", s.bytes}, {"tensors", s.tensors.size()},
                      {"resumed", std::find(r.shards_resumed.begin(), r.shards_resumed.end(), s.file) != r.shards_resumed.end()}});
  j["shards"] = shards;
  j["copied_files"] = r.copied_files;
  j["skipped_files"] = r.skipped_files;
  j["warnings"] = r.warnings;
  j["wall_s"] = r.wall_s;
  j["source_bytes_per_s"] = r.wall_s > 0 && !opt.dry_run ? double(p.in_bytes) / r.wall_s : 0.0;
  j["weights_per_s"] = r.wall_s > 0 && !opt.dry_run ? double(p.quantized_weights) / r.wall_s : 0.0;
  return j;
}

}  // namespace kbit
