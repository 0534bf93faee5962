// kbit-st-manifest: our reader's view of a checkpoint (a .safetensors file, a directory, or a
// sharded index) as JSON, for tests/interop/check_safetensors.py to compare with the Python
// safetensors package: per file its metadata, per tensor dtype, shape, data_offsets and the
// CRC-32 (zlib's) of its bytes. Usage: kbit-st-manifest PATH [OUT.json]; exit 0, or 2 on error.
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "kbit/error.h"
#include "kbit/safetensors.h"

namespace {

uint32_t crc32(std::span<const std::byte> bytes) {  // IEEE 802.3, reflected, as zlib.crc32
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xffffffffu;
  for (std::byte b : bytes) c = table[(c ^ uint32_t(b)) & 0xffu] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: kbit-st-manifest PATH [OUT.json]\n");
    return 2;
  }
  try {
    const kbit::st::Checkpoint ck = kbit::st::Checkpoint::open(argv[1]);
    nlohmann::ordered_json files = nlohmann::ordered_json::array();
    for (const kbit::st::File& f : ck.shards()) {
      nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
      for (const kbit::st::TensorInfo& t : f.tensors()) {
        tensors.push_back({{"name", t.name},
                           {"dtype", t.dtype},
                           {"shape", t.shape},
                           {"data_offsets", {t.begin, t.end}},
                           {"crc32", crc32(f.bytes(t))}});
        f.release(t);
      }
      files.push_back({{"file", f.path().filename().string()}, {"metadata", f.header().metadata}, {"tensors", tensors}});
    }
    const nlohmann::ordered_json doc = {{"sharded", ck.sharded()}, {"files", files}};
    if (argc == 3) {
      std::ofstream out(argv[2]);
      out << doc.dump(1) << "\n";
      if (!out) throw kbit::Error(std::string(argv[2]) + ": cannot write");
    } else {
      std::cout << doc.dump(1) << "\n";
    }
    return 0;
  } catch (const kbit::Error& e) {
    std::fprintf(stderr, "kbit-st-manifest: %s\n", e.what());
    return 2;
  }
}
