// safetensors reader (mmap + the reference reader's validation, notes/ecosystem.md §1), streaming
// atomic writer, and the checkpoint walker (single file, directory, sharded index).
#include "kbit/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "kbit/error.h"

namespace kbit::st {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct DTypeBits {
  std::string_view name;
  int bits;
};
// The reference implementation's Dtype enum (alignment order) with bit sizes.
constexpr DTypeBits kDTypes[] = {
    {"BOOL", 8},        {"F4", 4},           {"F6_E2M3", 6},      {"F6_E3M2", 6},  {"U8", 8},
    {"I8", 8},          {"F8_E5M2", 8},      {"F8_E4M3", 8},      {"F8_E8M0", 8},  {"F8_E4M3FNUZ", 8},
    {"F8_E5M2FNUZ", 8}, {"I16", 16},         {"U16", 16},         {"F16", 16},     {"BF16", 16},
    {"I32", 32},        {"U32", 32},         {"F32", 32},         {"C64", 64},     {"F64", 64},
    {"I64", 64},        {"U64", 64}};

std::string qstr(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string sys_error(int err) { return std::strerror(err); }

[[noreturn]] void fail(const std::string& label, const std::string& what) { throw Error(label + ": " + what); }

[[noreturn]] void fail_tensor(const std::string& label, std::string_view tensor, const std::string& what) {
  throw Error(label + ": tensor " + qstr(tensor) + ": " + what);
}

const char* json_kind(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a floating-point number";
    case json::value_t::binary: return "binary";
    case json::value_t::discarded: return "discarded";
  }
  return "?";
}

// Parses JSON text, refusing duplicate keys in any object (nlohmann keeps the last silently).
json parse_json_strict(std::string_view text, const std::string& label, const char* what) {
  std::vector<std::set<std::string>> keys;  // one key set per open object
  std::string duplicate;
  json::parser_callback_t cb = [&](int, json::parse_event_t ev, json& parsed) {
    if (ev == json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (ev == json::parse_event_t::object_end) {
      if (!keys.empty()) keys.pop_back();
    } else if (ev == json::parse_event_t::key && !keys.empty() && duplicate.empty()) {
      const std::string& k = parsed.get_ref<const std::string&>();
      if (!keys.back().insert(k).second) duplicate = k;
    }
    return true;
  };
  // nlohmann treats a NUL byte as the end of input, which would accept `{...}\0garbage`; JSON
  // allows no raw NUL anywhere (serde_json, the reference's parser, refuses it).
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos)
    fail(label, std::string(what) + " is not valid JSON: a NUL byte at offset " + std::to_string(nul) +
                    " (pad with spaces, not NULs)");
  json j;
  try {
    j = json::parse(text.begin(), text.end(), cb);
  } catch (const json::exception& e) {
    fail(label, std::string(what) + " is not valid JSON: " + e.what());
  }
  if (!duplicate.empty()) fail(label, std::string(what) + " has the duplicate key " + qstr(duplicate));
  return j;
}

bool get_u64(const json& j, uint64_t& out) {
  if (j.is_number_unsigned()) {
    out = j.get<uint64_t>();
    return true;
  }
  if (j.is_number_integer() && j.get<int64_t>() >= 0) {
    out = uint64_t(j.get<int64_t>());
    return true;
  }
  return false;
}

TensorInfo parse_tensor(const std::string& label, const std::string& name, const json& t) {
  if (!t.is_object()) fail_tensor(label, name, std::string("entry is ") + json_kind(t) + ", not an object");
  for (const auto& [k, v] : t.items())
    if (k != "dtype" && k != "shape" && k != "data_offsets")
      fail_tensor(label, name, "unexpected key " + qstr(k) + " (a tensor has exactly dtype, shape, data_offsets)");
  for (const char* k : {"dtype", "shape", "data_offsets"})
    if (!t.contains(k)) fail_tensor(label, name, std::string("missing ") + qstr(k));
  TensorInfo info;
  info.name = name;
  const json& dt = t["dtype"];
  if (!dt.is_string()) fail_tensor(label, name, std::string("dtype is ") + json_kind(dt) + ", not a string");
  info.dtype = dt.get<std::string>();
  if (dtype_bits(info.dtype) == 0) fail_tensor(label, name, "unknown dtype " + qstr(info.dtype));
  const json& sh = t["shape"];
  if (!sh.is_array()) fail_tensor(label, name, std::string("shape is ") + json_kind(sh) + ", not an array");
  for (const json& d : sh) {
    uint64_t v = 0;
    if (!get_u64(d, v)) fail_tensor(label, name, "shape " + sh.dump() + " holds a value that is not a non-negative integer");
    if (v > uint64_t(std::numeric_limits<int64_t>::max()))
      fail_tensor(label, name, "shape " + sh.dump() + " has a dimension too large to index");
    info.shape.push_back(int64_t(v));
  }
  const json& off = t["data_offsets"];
  uint64_t b = 0, e = 0;
  if (!off.is_array() || off.size() != 2 || !get_u64(off[0], b) || !get_u64(off[1], e))
    fail_tensor(label, name, "data_offsets " + off.dump() + " is not a pair [begin, end] of non-negative integers");
  if (e < b) fail_tensor(label, name, "data_offsets [" + std::to_string(b) + ", " + std::to_string(e) + ") end before they begin");
  info.begin = b;
  info.end = e;
  return info;
}

// numel * bits / 8 with overflow checks; throws naming the tensor.
uint64_t expected_bytes(const std::string& label, const std::string& name, const std::string& dtype,
                        const std::vector<int64_t>& shape) {
  uint64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0) fail_tensor(label, name, "shape " + shape_str(shape) + " has a negative dimension");
    if (d != 0 && numel > uint64_t(std::numeric_limits<int64_t>::max()) / uint64_t(d))
      fail_tensor(label, name, "shape " + shape_str(shape) + " has more elements than fit in 64 bits");
    numel *= uint64_t(d);
  }
  const uint64_t bits = uint64_t(dtype_bits(dtype));
  if (numel > std::numeric_limits<uint64_t>::max() / bits)
    fail_tensor(label, name, dtype + " " + shape_str(shape) + " has more bits than fit in 64 bits");
  if ((numel * bits) % 8 != 0)
    fail_tensor(label, name, dtype + " " + shape_str(shape) + " is " + std::to_string(numel * bits) +
                                 " bits, not a whole number of bytes");
  return numel * bits / 8;
}

}  // namespace

int64_t TensorInfo::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int dtype_bits(std::string_view dtype) {
  for (const DTypeBits& d : kDTypes)
    if (d.name == dtype) return d.bits;
  return 0;
}

Header parse_header(std::span<const uint8_t> prefix, uint64_t file_size, const std::string& label) {
  if (file_size < 8 || prefix.size() < 8)
    fail(label, "file is " + std::to_string(std::min<uint64_t>(file_size, prefix.size())) +
                    " bytes, too short for the 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | prefix[size_t(i)];
  if (n > kMaxHeaderBytes)
    fail(label, "header length " + std::to_string(n) + " exceeds the limit of " + std::to_string(kMaxHeaderBytes) +
                    " bytes (not a safetensors file, or corrupt)");
  if (8 + n > file_size)
    fail(label, "header length " + std::to_string(n) + " runs past the end of the file (" + std::to_string(file_size) +
                    " bytes): truncated or not a safetensors file");
  if (prefix.size() < 8 + n)
    fail(label, "only " + std::to_string(prefix.size()) + " bytes given for a header ending at byte " + std::to_string(8 + n));

  const std::string_view text(reinterpret_cast<const char*>(prefix.data()) + 8, size_t(n));
  const json root = parse_json_strict(text, label, "header");
  if (!root.is_object()) fail(label, std::string("header is ") + json_kind(root) + ", not a JSON object");

  Header h;
  h.data_start = 8 + n;
  for (const auto& [key, value] : root.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) fail(label, std::string("__metadata__ is ") + json_kind(value) + ", not an object of strings");
      for (const auto& [mk, mv] : value.items()) {
        if (!mv.is_string())
          fail(label, "__metadata__ value of " + qstr(mk) + " is " + json_kind(mv) + ", not a string");
        h.metadata.emplace(mk, mv.get<std::string>());
      }
      continue;
    }
    h.tensors.push_back(parse_tensor(label, key, value));
  }
  std::sort(h.tensors.begin(), h.tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });

  const uint64_t data_size = file_size - h.data_start;
  uint64_t expect = 0;
  for (size_t i = 0; i < h.tensors.size(); ++i) {
    const TensorInfo& t = h.tensors[i];
    const std::string range = "data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) + ")";
    if (t.begin > expect)
      fail_tensor(label, t.name, range + " leave a gap: bytes [" + std::to_string(expect) + ", " + std::to_string(t.begin) +
                                     ") of the data buffer belong to no tensor");
    if (t.begin < expect)
      fail_tensor(label, t.name, range + " overlap tensor " + qstr(h.tensors[i - 1].name) + ", which ends at " +
                                     std::to_string(expect));
    const uint64_t need = expected_bytes(label, t.name, t.dtype, t.shape);
    if (t.nbytes() != need)
      fail_tensor(label, t.name, range + " hold " + std::to_string(t.nbytes()) + " bytes but " + t.dtype + " " +
                                     shape_str(t.shape) + " needs " + std::to_string(need));
    if (t.end > data_size)
      fail_tensor(label, t.name, range + " run past the end of the file: the data buffer holds " +
                                     std::to_string(data_size) + " bytes (truncated file?)");
    expect = t.end;
  }
  if (expect != data_size)
    fail(label, std::to_string(data_size - expect) + " trailing bytes after the last tensor (tensors cover " +
                    std::to_string(expect) + " of the " + std::to_string(data_size) +
                    " data bytes; the buffer must be entirely indexed)");
  return h;
}

// ------------------------------------------------------------------------------------------
// File

struct File::Impl {
  fs::path path;
  Header header;
  std::vector<const TensorInfo*> by_name;  // header.tensors sorted by name, for find()
  const std::byte* map = nullptr;
  size_t size = 0;

  ~Impl() {
    if (map) munmap(const_cast<std::byte*>(map), size);
  }
};

File::File() : impl_(std::make_unique<Impl>()) {}
File::File(File&&) noexcept = default;
File& File::operator=(File&&) noexcept = default;
File::~File() = default;

File File::open(const fs::path& path) {
  const std::string label = path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(label, "cannot open: " + sys_error(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    fail(label, "cannot stat: " + sys_error(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(label, "not a regular file");
  }
  File f;
  f.impl_->path = path;
  f.impl_->size = size_t(st.st_size);
  if (f.impl_->size >= 8) {
    void* p = mmap(nullptr, f.impl_->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      fail(label, "cannot mmap: " + sys_error(err));
    }
    f.impl_->map = static_cast<const std::byte*>(p);
  }
  ::close(fd);  // the mapping keeps the file open
  const auto* bytes = reinterpret_cast<const uint8_t*>(f.impl_->map);
  f.impl_->header = parse_header({bytes, bytes ? f.impl_->size : 0}, uint64_t(st.st_size), label);
  for (const TensorInfo& t : f.impl_->header.tensors) f.impl_->by_name.push_back(&t);
  std::sort(f.impl_->by_name.begin(), f.impl_->by_name.end(),
            [](const TensorInfo* a, const TensorInfo* b) { return a->name < b->name; });
  return f;
}

const fs::path& File::path() const { return impl_->path; }
const Header& File::header() const { return impl_->header; }

const TensorInfo* File::find(std::string_view name) const {
  const auto& v = impl_->by_name;
  const auto it = std::lower_bound(v.begin(), v.end(), name,
                                   [](const TensorInfo* t, std::string_view n) { return t->name < n; });
  return it != v.end() && (*it)->name == name ? *it : nullptr;
}

std::span<const std::byte> File::bytes(const TensorInfo& t) const {
  if (t.end < t.begin || impl_->header.data_start + t.end > impl_->size)
    fail_tensor(impl_->path.string(), t.name, "data_offsets outside this file (a TensorInfo of another file?)");
  return {impl_->map + impl_->header.data_start + t.begin, size_t(t.nbytes())};
}

namespace {
// Whole pages around [begin, end) of a mapping starting at base (rounded outward).
std::pair<void*, size_t> page_range(const std::byte* base, uint64_t begin, uint64_t end) {
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t lo = (uintptr_t(base) + begin) & ~(page - 1);
  const uintptr_t hi = (uintptr_t(base) + end + page - 1) & ~(page - 1);
  return {reinterpret_cast<void*>(lo), size_t(hi - lo)};
}
}  // namespace

void File::prefetch(const TensorInfo& t) const {
  if (t.nbytes() == 0) return;
  const auto [p, n] = page_range(impl_->map, impl_->header.data_start + t.begin, impl_->header.data_start + t.end);
  madvise(p, n, MADV_WILLNEED);  // advice only: failure changes nothing but speed
}

void File::release(const TensorInfo& t) const {
  if (t.nbytes() == 0) return;
  // A read-only private file mapping: dropping pages loses nothing (they refault from the page
  // cache), so rounding outward onto a neighbour's pages is harmless.
  const auto [p, n] = page_range(impl_->map, impl_->header.data_start + t.begin, impl_->header.data_start + t.end);
  madvise(p, n, MADV_DONTNEED);
}

// ------------------------------------------------------------------------------------------
// Writer

namespace {

void write_all(int fd, const void* data, size_t bytes, const fs::path& path) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t w = ::write(fd, p, std::min<size_t>(bytes, size_t(1) << 30));
    if (w < 0) {
      if (errno == EINTR) continue;
      throw Error(path.string() + ": write failed: " + sys_error(errno));
    }
    p += w;
    bytes -= size_t(w);
  }
}

void fsync_dir(const fs::path& dir) {
  const fs::path d = dir.empty() ? fs::path(".") : dir;
  const int fd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw Error(d.string() + ": cannot open directory to sync it: " + sys_error(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  // Some filesystems refuse fsync on directories (EINVAL); the rename itself has happened.
  if (rc != 0 && err != EINVAL) throw Error(d.string() + ": directory fsync failed: " + sys_error(err));
}

// Creates `.<name>.tmp-<pid>` beside final_path, exclusively.
std::pair<fs::path, int> create_temp(const fs::path& final_path) {
  std::error_code ec;
  if (fs::is_directory(final_path, ec))
    throw Error(final_path.string() + ": is a directory; cannot write a file there");
  const fs::path temp =
      final_path.parent_path() / ("." + final_path.filename().string() + ".tmp-" + std::to_string(::getpid()));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    std::string hint;
    if (err == EEXIST) hint = " (left by an earlier run? remove it)";
    else if (err == ENOENT || err == ENOTDIR) hint = " (the output directory does not exist)";
    else if (err == EACCES || err == EROFS || err == EPERM) hint = " (is the output directory writable?)";
    throw Error(final_path.string() + ": cannot create the temporary file " + temp.string() + ": " + sys_error(err) + hint);
  }
  return {temp, fd};
}

}  // namespace

struct Writer::Impl {
  fs::path final_path, temp_path;
  int fd = -1;
  bool committed = false, failed = false;
  std::vector<Entry> entries;
  std::vector<uint64_t> sizes;
  std::map<std::string, size_t, std::less<>> index;
  size_t cur = 0;            // tensor being written
  uint64_t cur_written = 0;  // its bytes so far
  uint64_t file_size = 0;
  std::vector<char> buf;     // coalesces small writes
  static constexpr size_t kBufBytes = size_t(1) << 20;

  void flush() {
    if (buf.empty()) return;
    write_all(fd, buf.data(), buf.size(), temp_path);
    buf.clear();
  }
  void put(const void* data, size_t bytes) {
    if (buf.size() + bytes > kBufBytes) flush();
    if (bytes >= kBufBytes) {
      write_all(fd, data, bytes, temp_path);
    } else {
      const char* p = static_cast<const char*>(data);
      buf.insert(buf.end(), p, p + bytes);
    }
  }
  void advance_past_complete() {
    while (cur < entries.size() && cur_written == sizes[cur]) {
      ++cur;
      cur_written = 0;
    }
  }
  void check_usable(const char* op) const {
    if (committed) throw Error(final_path.string() + ": " + op + " after commit()");
    if (failed) throw Error(final_path.string() + ": " + op + " after an earlier error; the write was abandoned");
  }
};

Writer::Writer(const fs::path& final_path, std::vector<Entry> entries, std::map<std::string, std::string> metadata)
    : impl_(std::make_unique<Impl>()) {
  Impl& w = *impl_;
  w.final_path = final_path;
  const std::string label = final_path.string();
  if (auto it = metadata.find("format"); it != metadata.end() && it->second != "pt")
    fail(label, "__metadata__ \"format\" must be \"pt\" (transformers refuses other values), got " + qstr(it->second));
  metadata["format"] = "pt";

  nlohmann::ordered_json header;
  header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (e.name == "__metadata__") fail(label, "a tensor cannot be named \"__metadata__\"");
    if (!w.index.emplace(e.name, i).second) fail_tensor(label, e.name, "declared twice");
    if (dtype_bits(e.dtype) == 0) fail_tensor(label, e.name, "unknown dtype " + qstr(e.dtype));
    const uint64_t n = expected_bytes(label, e.name, e.dtype, e.shape);
    if (offset > std::numeric_limits<uint64_t>::max() - n) fail_tensor(label, e.name, "data buffer size overflows");
    header[e.name] = {{"dtype", e.dtype}, {"shape", e.shape}, {"data_offsets", {offset, offset + n}}};
    w.sizes.push_back(n);
    offset += n;
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception& ex) {
    fail(label, std::string("cannot encode the header (tensor or metadata names must be UTF-8): ") + ex.what());
  }
  text.append((8 - text.size() % 8) % 8, ' ');  // data starts 8-byte aligned
  if (text.size() > kMaxHeaderBytes)
    fail(label, "header would be " + std::to_string(text.size()) + " bytes, over the limit of " +
                    std::to_string(kMaxHeaderBytes));
  w.entries = std::move(entries);
  w.file_size = 8 + text.size() + offset;

  std::tie(w.temp_path, w.fd) = create_temp(final_path);
  try {
    uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = uint8_t(uint64_t(text.size()) >> (8 * i));
    w.put(len, 8);
    w.put(text.data(), text.size());
    w.advance_past_complete();
  } catch (...) {
    ::close(w.fd);  // the destructor does not run for a throwing constructor: clean up here
    ::unlink(w.temp_path.c_str());
    throw;
  }
}

Writer::~Writer() {
  if (!impl_) return;
  if (impl_->fd >= 0) ::close(impl_->fd);
  if (!impl_->committed && !impl_->temp_path.empty()) ::unlink(impl_->temp_path.c_str());
}

void Writer::write(std::string_view name, const void* data, size_t bytes) {
  Impl& w = *impl_;
  w.check_usable("write()");
  const std::string label = w.final_path.string();
  const auto it = w.index.find(name);
  if (it == w.index.end()) fail_tensor(label, name, "write() of a tensor that was not declared");
  if (it->second < w.cur && bytes == 0) return;  // e.g. a zero-byte tensor, complete from the start
  if (it->second < w.cur) fail_tensor(label, name, "already written (tensors are written once, in declared order)");
  if (it->second > w.cur)
    fail_tensor(label, name, "written out of order: tensor " + qstr(w.entries[w.cur].name) + " is next (" +
                                 std::to_string(w.cur_written) + " of " + std::to_string(w.sizes[w.cur]) + " bytes written)");
  if (bytes > w.sizes[w.cur] - w.cur_written)
    fail_tensor(label, name, std::to_string(w.cur_written + bytes) + " bytes written but " + w.entries[w.cur].dtype +
                                 " " + shape_str(w.entries[w.cur].shape) + " holds " + std::to_string(w.sizes[w.cur]));
  try {
    w.put(data, bytes);
  } catch (...) {
    w.failed = true;
    throw;
  }
  w.cur_written += bytes;
  w.advance_past_complete();
}

void Writer::commit() {
  Impl& w = *impl_;
  w.check_usable("commit()");
  const std::string label = w.final_path.string();
  w.advance_past_complete();
  if (w.cur < w.entries.size())
    fail_tensor(label, w.entries[w.cur].name, "incomplete at commit(): " + std::to_string(w.cur_written) + " of " +
                                                  std::to_string(w.sizes[w.cur]) + " bytes written");
  w.failed = true;  // until the rename succeeds
  w.flush();
  if (::fsync(w.fd) != 0) throw Error(w.temp_path.string() + ": fsync failed: " + sys_error(errno));
  const int rc = ::close(w.fd);
  w.fd = -1;
  if (rc != 0) throw Error(w.temp_path.string() + ": close failed: " + sys_error(errno));
  if (::rename(w.temp_path.c_str(), w.final_path.c_str()) != 0)
    throw Error(label + ": cannot rename " + w.temp_path.string() + " into place: " + sys_error(errno));
  w.committed = true;
  w.failed = false;
  fsync_dir(w.final_path.parent_path());
}

const fs::path& Writer::temp_path() const { return impl_->temp_path; }
uint64_t Writer::file_size() const { return impl_->file_size; }

void sort_by_alignment(std::vector<Writer::Entry>& entries) {
  std::stable_sort(entries.begin(), entries.end(), [](const Writer::Entry& a, const Writer::Entry& b) {
    const int ba = dtype_bits(a.dtype), bb = dtype_bits(b.dtype);
    return ba != bb ? ba > bb : a.name < b.name;
  });
}

void write_text_atomic(const fs::path& path, std::string_view text) {
  auto [temp, fd] = create_temp(path);
  try {
    write_all(fd, text.data(), text.size(), temp);
    if (::fsync(fd) != 0) throw Error(temp.string() + ": fsync failed: " + sys_error(errno));
    const int rc = ::close(fd);
    fd = -1;
    if (rc != 0) throw Error(temp.string() + ": close failed: " + sys_error(errno));
    if (::rename(temp.c_str(), path.c_str()) != 0)
      throw Error(path.string() + ": cannot rename " + temp.string() + " into place: " + sys_error(errno));
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  fsync_dir(path.parent_path());
}

void write_index(const fs::path& dir, const std::map<std::string, std::string>& weight_map, uint64_t total_size) {
  nlohmann::ordered_json j;
  j["metadata"] = {{"total_size", total_size}};
  j["weight_map"] = weight_map;
  write_text_atomic(dir / kIndexName, j.dump(2) + "\n");
}

// ------------------------------------------------------------------------------------------
// Checkpoint

struct Checkpoint::Impl {
  fs::path root;
  bool sharded = false;
  std::vector<File> shards;
  std::map<std::string, Located, std::less<>> by_name;
  std::vector<std::string> warnings;
};

Checkpoint::Checkpoint() : impl_(std::make_unique<Impl>()) {}
Checkpoint::Checkpoint(Checkpoint&&) noexcept = default;
Checkpoint& Checkpoint::operator=(Checkpoint&&) noexcept = default;
Checkpoint::~Checkpoint() = default;

namespace {

std::string read_small_file(const fs::path& p) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(p.string() + ": cannot open: " + sys_error(errno));
  std::string s;
  char chunk[65536];
  for (;;) {
    const ssize_t r = ::read(fd, chunk, sizeof chunk);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      const int err = errno;
      ::close(fd);
      throw Error(p.string() + ": read failed: " + sys_error(err));
    }
    if (r == 0) break;
    s.append(chunk, size_t(r));
    if (s.size() > kMaxHeaderBytes) {
      ::close(fd);
      throw Error(p.string() + ": larger than " + std::to_string(kMaxHeaderBytes) + " bytes; not an index");
    }
  }
  ::close(fd);
  return s;
}

// A shard name from an index: a relative path that stays inside the checkpoint directory.
bool safe_relative(const fs::path& p) {
  if (p.empty() || p.is_absolute()) return false;
  for (const fs::path& part : p)
    if (part == "..") return false;
  return true;
}

}  // namespace

Checkpoint Checkpoint::open(const fs::path& path) {
  Checkpoint c;
  Impl& ck = *c.impl_;
  std::error_code ec;
  fs::path index_path;
  if (fs::is_directory(path, ec)) {
    ck.root = path;
    if (fs::exists(path / kIndexName, ec)) index_path = path / kIndexName;
    else if (fs::exists(path / "model.safetensors", ec)) ck.shards.push_back(File::open(path / "model.safetensors"));
    else
      throw Error(path.string() + ": no model.safetensors or " + std::string(kIndexName) +
                  " in this directory (give a checkpoint directory or a .safetensors file)");
  } else if (!fs::exists(path, ec)) {
    throw Error(path.string() + ": does not exist");
  } else {
    ck.root = path.has_parent_path() ? path.parent_path() : fs::path(".");
    const std::string fname = path.filename().string();
    if (fname.size() >= 11 && fname.ends_with(".index.json")) index_path = path;
    else ck.shards.push_back(File::open(path));
  }

  if (!index_path.empty()) {
    ck.sharded = true;
    const std::string label = index_path.string();
    const nlohmann::json j = parse_json_strict(read_small_file(index_path), label, "index");
    if (!j.is_object() || !j.contains("weight_map") || !j.at("weight_map").is_object())
      fail(label, "no \"weight_map\" object (not a safetensors index)");
    std::map<std::string, std::vector<std::string>> by_shard;  // shard file -> tensors the index puts there
    for (const auto& [tensor, shard] : j.at("weight_map").items()) {
      if (!shard.is_string()) fail(label, "weight_map entry of tensor " + qstr(tensor) + " is " + json_kind(shard) + ", not a file name");
      const std::string s = shard.get<std::string>();
      if (!safe_relative(s)) fail(label, "tensor " + qstr(tensor) + ": shard " + qstr(s) + " is not a file name inside the checkpoint directory");
      by_shard[s].push_back(tensor);
    }
    if (by_shard.empty()) fail(label, "weight_map is empty");
    for (const auto& [shard, tensors] : by_shard) {
      const fs::path p = ck.root / shard;
      if (!fs::is_regular_file(p, ec))
        fail(label, "shard " + qstr(shard) + " (listed for " + std::to_string(tensors.size()) + " tensors, e.g. " +
                        qstr(tensors.front()) + ") does not exist in " + ck.root.string());
      ck.shards.push_back(File::open(p));
    }
    // Every indexed tensor must be in the shard the index names.
    size_t si = 0;
    for (const auto& [shard, tensors] : by_shard) {
      const File& f = ck.shards[si++];
      for (const std::string& t : tensors) {
        if (f.find(t)) continue;
        // On this error path only: look for the tensor in the other .safetensors files of the
        // directory, listed or not, to say where it is.
        std::string where;
        for (const auto& entry : fs::directory_iterator(ck.root, ec)) {
          const fs::path& p = entry.path();
          if (p.extension() != ".safetensors" || p.filename() == fs::path(shard) || !entry.is_regular_file(ec)) continue;
          try {
            if (File::open(p).find(t)) where = p.filename().string();
          } catch (const Error&) {
          }
          if (!where.empty()) break;
        }
        fail(label, "tensor " + qstr(t) + " is indexed in shard " + qstr(shard) + " but " +
                        (where.empty() ? std::string("that file does not hold it") : "it is in shard " + qstr(where)));
      }
    }
    const nlohmann::json& wm = j.at("weight_map");
    for (const File& f : ck.shards)
      for (const TensorInfo& t : f.tensors()) {
        if (!wm.contains(t.name))
          ck.warnings.push_back(f.path().string() + ": tensor " + qstr(t.name) + " is not listed in " + label);
      }
  }

  for (const File& f : ck.shards)
    for (const TensorInfo& t : f.tensors()) {
      const auto [it, fresh] = ck.by_name.emplace(t.name, Located{&f, &t});
      if (!fresh)
        throw Error(ck.root.string() + ": tensor " + qstr(t.name) + " appears in two shards: " +
                    it->second.file->path().filename().string() + " and " + f.path().filename().string());
    }
  return c;
}

const fs::path& Checkpoint::root() const { return impl_->root; }
bool Checkpoint::sharded() const { return impl_->sharded; }
const std::vector<File>& Checkpoint::shards() const { return impl_->shards; }
const std::vector<std::string>& Checkpoint::warnings() const { return impl_->warnings; }

std::vector<std::string> Checkpoint::names() const {
  std::vector<std::string> out;
  for (const File& f : impl_->shards)
    for (const TensorInfo& t : f.tensors()) out.push_back(t.name);
  return out;
}

Checkpoint::Located Checkpoint::find(std::string_view name) const {
  const auto it = impl_->by_name.find(name);
  return it == impl_->by_name.end() ? Located{nullptr, nullptr} : it->second;
}

}  // namespace kbit::st
