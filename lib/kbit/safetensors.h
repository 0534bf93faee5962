// safetensors reading and writing (the format of huggingface/safetensors; see docs/safetensors.md).
// Reading memory-maps the file: tensor bytes are never copied as a whole. Every violation of the
// format is a kbit::Error whose message names the file, the tensor (when there is one) and the
// rule broken. Writing streams tensor bytes in declared order into a temporary file next to the
// destination and renames it into place only on commit(): a failed or interrupted write never
// leaves a file under the final name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kbit::st {

// Header limits (the reference implementation's): the header is at most 100,000,000 bytes.
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// The index file of a sharded checkpoint.
inline constexpr const char* kIndexName = "model.safetensors.index.json";

struct TensorInfo {
  std::string name;
  std::string dtype;             // safetensors spelling: "BF16", "F16", "F32", "I32", "U8", ...
  std::vector<int64_t> shape;    // [] is a scalar
  uint64_t begin = 0, end = 0;   // data_offsets, relative to the start of the data buffer

  int64_t numel() const;
  uint64_t nbytes() const { return end - begin; }
};

// Size in bits of one element of a safetensors dtype; 0 when the dtype is unknown.
int dtype_bits(std::string_view dtype);

struct Header {
  std::vector<TensorInfo> tensors;              // sorted by begin offset
  std::map<std::string, std::string> metadata;  // "__metadata__" (string -> string)
  uint64_t data_start = 0;                      // 8 + header length
};

// Parses and validates a header against a file of file_size bytes whose first bytes are
// `prefix` (at least 8 + header length of them). `label` (usually the path) goes into errors.
// This is the function the fuzz target drives.
Header parse_header(std::span<const uint8_t> prefix, uint64_t file_size, const std::string& label);

class File {
 public:
  // Opens and memory-maps `path` read-only and validates it (throws kbit::Error).
  static File open(const std::filesystem::path& path);

  File(File&&) noexcept;
  File& operator=(File&&) noexcept;
  ~File();

  const std::filesystem::path& path() const;
  const Header& header() const;
  const std::vector<TensorInfo>& tensors() const { return header().tensors; }
  const TensorInfo* find(std::string_view name) const;  // nullptr when absent
  // The tensor's bytes inside the mapping (valid while this File lives).
  std::span<const std::byte> bytes(const TensorInfo& t) const;
  // Page-cache hints (madvise), never errors: prefetch() before reading a tensor; release() after
  // it, which drops its pages from this process's resident set (they refault from the page cache
  // if read again), so a pass over a large checkpoint keeps RSS near one tensor.
  void prefetch(const TensorInfo& t) const;
  void release(const TensorInfo& t) const;

 private:
  File();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Streaming writer. Declare every tensor up front (the header needs all offsets), then call
// write() for each tensor in declared order (a tensor may arrive in several pieces), then
// commit(). Zero-byte tensors need no write(). The header is padded with spaces to a multiple of
// 8 bytes and its metadata always holds "format": "pt" (another "format" value is an error). The
// temporary file is `.<name>.tmp-<pid>` beside final_path, created by the constructor; the
// destructor of an uncommitted writer (an exception, an early return) removes it.
class Writer {
 public:
  struct Entry {
    std::string name;
    std::string dtype;
    std::vector<int64_t> shape;
  };
  Writer(const std::filesystem::path& final_path, std::vector<Entry> entries,
         std::map<std::string, std::string> metadata = {});
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  ~Writer();

  // Appends bytes to the tensor currently being written (declared order). Throws kbit::Error on
  // a name out of order, more bytes than declared, or an I/O error (naming the path).
  void write(std::string_view name, const void* data, size_t bytes);
  // Checks every tensor is complete, fsyncs, renames onto final_path, fsyncs the directory.
  void commit();

  const std::filesystem::path& temp_path() const;
  // Size of the finished file (8 + header + data), known from the declarations.
  uint64_t file_size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Tensors are laid out in declared order. Sorting the entries with this (descending element size,
// then name: the reference writer's order) keeps every tensor aligned to its element size.
void sort_by_alignment(std::vector<Writer::Entry>& entries);

// Writes a small file (config.json, an index) through a temporary file, fsync and rename.
void write_text_atomic(const std::filesystem::path& path, std::string_view text);
// Writes dir/model.safetensors.index.json: {"metadata": {"total_size": ...}, "weight_map": ...}.
void write_index(const std::filesystem::path& dir, const std::map<std::string, std::string>& weight_map,
                 uint64_t total_size);

// A whole Hugging Face checkpoint: a directory with model.safetensors, or shards listed by
// model.safetensors.index.json, or one .safetensors file (or the index file itself). Validates
// that the index's shards exist, that every indexed tensor is in the shard the index names, and
// that no tensor appears twice. Tensors in a shard but absent from the index are kept (as
// transformers loads them) and listed in warnings().
class Checkpoint {
 public:
  static Checkpoint open(const std::filesystem::path& path);

  struct Located {
    const File* file;
    const TensorInfo* info;
  };
  const std::filesystem::path& root() const;        // the directory (or the file's directory)
  std::vector<std::string> names() const;           // every tensor, in shard then offset order
  Located find(std::string_view name) const;        // {nullptr, nullptr} when absent
  const std::vector<File>& shards() const;
  bool sharded() const;                             // true when read through an index
  const std::vector<std::string>& warnings() const;  // non-fatal findings, one line each

  Checkpoint(Checkpoint&&) noexcept;
  Checkpoint& operator=(Checkpoint&&) noexcept;
  ~Checkpoint();

 private:
  Checkpoint();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kbit::st
