// safetensors reader/writer/checkpoint: round trips, the writer's atomicity, and a hostile-input
// corpus generated here (each malformed file must fail with its own rule named, the file named,
// and the tensor named where there is one). The corpus follows the reference reader's rules
// (notes/ecosystem.md §1); tests/fuzz/ drives parse_header with random bytes.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kbit/error.h"
#include "kbit/rng.h"
#include "kbit/safetensors.h"
#include "temp_dir.h"

using namespace kbit;
using namespace kbit::st;
namespace fs = std::filesystem;

namespace {

using TempDir = kbit::test::TempDir;

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[size_t(i)] = char(uint8_t(n >> (8 * i)));
  return s;
}

// A raw safetensors file: the header text as given (not validated, not padded) and `data` bytes.
std::string raw_file(const std::string& header, size_t data_bytes) {
  return le64(header.size()) + header + std::string(data_bytes, '\x11');
}

void put_file(const fs::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), std::streamsize(bytes.size()));
  REQUIRE(f.good());
}

std::string get_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Opens `bytes` as dir/name through File::open and returns the error message ("" when none).
std::string open_error(const TempDir& dir, const std::string& name, const std::string& bytes) {
  put_file(dir / name, bytes);
  try {
    File::open(dir / name);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string checkpoint_error(const fs::path& p) {
  try {
    Checkpoint::open(p);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const std::string kT = R"("dtype":"BF16","shape":[3,4])";  // 24 bytes

struct Hostile {
  const char* what;
  std::string bytes;
  const char* error;       // distinctive substring of the message
  const char* tensor;      // the tensor the message must name, or nullptr
};

std::vector<Hostile> hostile_corpus() {
  const std::string ok = R"({"__metadata__":{"format":"pt"},"x.weight":{)" + kT + R"(,"data_offsets":[0,24]}})";
  std::vector<Hostile> c;
  c.push_back({"empty file", "", "too short for the 8-byte header length", nullptr});
  c.push_back({"five bytes", std::string("\x05\0\0\0\0", 5), "too short for the 8-byte header length", nullptr});
  c.push_back({"header length 2^63", le64(uint64_t(1) << 63) + "{}", "exceeds the limit of 100000000", nullptr});
  c.push_back({"header length just over the limit", le64(kMaxHeaderBytes + 1) + "{}", "exceeds the limit", nullptr});
  c.push_back({"header length past EOF", le64(1000) + "{}", "header length 1000 runs past the end of the file", nullptr});
  c.push_back({"truncated header", raw_file(ok, 24).substr(0, 8 + ok.size() - 3), "runs past the end of the file", nullptr});
  c.push_back({"truncated data", raw_file(ok, 23), "run past the end of the file: the data buffer holds 23 bytes", "x.weight"});
  c.push_back({"bad JSON", raw_file(R"({"x.weight": {"dtype":)", 0), "header is not valid JSON", nullptr});
  c.push_back({"garbage after JSON", raw_file(ok + "\x01", 24), "header is not valid JSON", nullptr});
  c.push_back({"NUL padding", raw_file(ok + std::string(3, '\0'), 24), "header is not valid JSON", nullptr});
  c.push_back({"NUL then garbage", raw_file(ok + std::string("\0xyz", 4), 24), "a NUL byte at offset", nullptr});
  c.push_back({"invalid UTF-8 name", raw_file("{\"x\xff\":{" + kT + R"(,"data_offsets":[0,24]}})", 24),
               "header is not valid JSON", nullptr});
  c.push_back({"header is an array", raw_file("[1, 2]", 0), "header is an array, not a JSON object", nullptr});
  c.push_back({"header is a string", raw_file(R"("hi")", 0), "header is a string, not a JSON object", nullptr});
  c.push_back({"duplicate tensor names",
               raw_file(R"({"x":{)" + kT + R"(,"data_offsets":[0,24]},"x":{)" + kT + R"(,"data_offsets":[24,48]}})", 48),
               "duplicate key \"x\"", nullptr});
  c.push_back({"duplicate metadata key", raw_file(R"({"__metadata__":{"a":"1","a":"2"}})", 0), "duplicate key \"a\"", nullptr});
  c.push_back({"duplicate key inside a tensor",
               raw_file(R"({"x":{"dtype":"BF16","dtype":"F16","shape":[3,4],"data_offsets":[0,24]}})", 24),
               "duplicate key \"dtype\"", nullptr});
  c.push_back({"metadata value not a string", raw_file(R"({"__metadata__":{"format":"pt","n":1}})", 0),
               "__metadata__ value of \"n\" is an integer, not a string", nullptr});
  c.push_back({"metadata value an object", raw_file(R"({"__metadata__":{"m":{"a":"b"}}})", 0),
               "__metadata__ value of \"m\" is an object, not a string", nullptr});
  c.push_back({"metadata not an object", raw_file(R"({"__metadata__":["a"]})", 0), "__metadata__ is an array", nullptr});
  c.push_back({"tensor entry not an object", raw_file(R"({"x":"BF16"})", 0), "entry is a string, not an object", "x"});
  c.push_back({"unknown dtype", raw_file(R"({"x":{"dtype":"BF17","shape":[3,4],"data_offsets":[0,24]}})", 24),
               "unknown dtype \"BF17\"", "x"});
  c.push_back({"lower-case dtype", raw_file(R"({"x":{"dtype":"bf16","shape":[3,4],"data_offsets":[0,24]}})", 24),
               "unknown dtype \"bf16\"", "x"});
  c.push_back({"dtype not a string", raw_file(R"({"x":{"dtype":16,"shape":[3,4],"data_offsets":[0,24]}})", 24),
               "dtype is an integer, not a string", "x"});
  c.push_back({"extra tensor key", raw_file(R"({"x":{)" + kT + R"(,"data_offsets":[0,24],"stride":[4,1]}})", 24),
               "unexpected key \"stride\"", "x"});
  c.push_back({"missing shape", raw_file(R"({"x":{"dtype":"BF16","data_offsets":[0,24]}})", 24), "missing \"shape\"", "x"});
  c.push_back({"missing data_offsets", raw_file(R"({"x":{)" + kT + "}}", 24), "missing \"data_offsets\"", "x"});
  c.push_back({"negative shape", raw_file(R"({"x":{"dtype":"BF16","shape":[-3,4],"data_offsets":[0,24]}})", 24),
               "not a non-negative integer", "x"});
  c.push_back({"fractional shape", raw_file(R"({"x":{"dtype":"BF16","shape":[3.0,4],"data_offsets":[0,24]}})", 24),
               "not a non-negative integer", "x"});
  c.push_back({"shape not an array", raw_file(R"({"x":{"dtype":"BF16","shape":12,"data_offsets":[0,24]}})", 24),
               "shape is an integer, not an array", "x"});
  c.push_back({"shape element overflow",
               raw_file(R"({"x":{"dtype":"U8","shape":[4611686018427387904,4611686018427387904],"data_offsets":[0,0]}})", 0),
               "more elements than fit in 64 bits", "x"});
  c.push_back({"shape bits overflow",
               raw_file(R"({"x":{"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,0]}})", 0),
               "more bits than fit in 64 bits", "x"});
  c.push_back({"sub-byte remainder", raw_file(R"({"x":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", 2),
               "12 bits, not a whole number of bytes", "x"});
  c.push_back({"offsets not a pair", raw_file(R"({"x":{)" + kT + R"(,"data_offsets":[0,12,24]}})", 24),
               "is not a pair [begin, end]", "x"});
  c.push_back({"negative offset", raw_file(R"({"x":{)" + kT + R"(,"data_offsets":[-24,0]}})", 24), "is not a pair [begin, end]", "x"});
  c.push_back({"end before begin", raw_file(R"({"x":{)" + kT + R"(,"data_offsets":[24,0]}})", 24), "end before they begin", "x"});
  c.push_back({"offsets overlapping",
               raw_file(R"({"a":{)" + kT + R"(,"data_offsets":[0,24]},"b":{)" + kT + R"(,"data_offsets":[20,44]}})", 44),
               "overlap tensor \"a\", which ends at 24", "b"});
  c.push_back({"same offsets twice",
               raw_file(R"({"a":{)" + kT + R"(,"data_offsets":[0,24]},"b":{)" + kT + R"(,"data_offsets":[0,24]}})", 24),
               "overlap tensor \"a\"", "b"});
  c.push_back({"gap between tensors",
               raw_file(R"({"a":{)" + kT + R"(,"data_offsets":[0,24]},"b":{)" + kT + R"(,"data_offsets":[32,56]}})", 56),
               "leave a gap: bytes [24, 32)", "b"});
  c.push_back({"first tensor not at 0", raw_file(R"({"a":{)" + kT + R"(,"data_offsets":[8,32]}})", 32),
               "leave a gap: bytes [0, 8)", "a"});
  c.push_back({"offsets out of range",
               raw_file(R"({"a":{)" + kT + R"(,"data_offsets":[0,24]},"b":{)" + kT + R"(,"data_offsets":[24,48]}})", 30),
               "run past the end of the file: the data buffer holds 30 bytes", "b"});
  c.push_back({"size mismatch", raw_file(R"({"x.weight":{"dtype":"BF16","shape":[3,4],"data_offsets":[0,10]}})", 10),
               "data_offsets [0, 10) hold 10 bytes but BF16 [3, 4] needs 24", "x.weight"});
  c.push_back({"trailing bytes", raw_file(ok, 25), "1 trailing bytes after the last tensor", nullptr});
  c.push_back({"bytes but no tensors", raw_file("{}", 5), "5 trailing bytes", nullptr});
  return c;
}

}  // namespace

TEST_CASE("safetensors hostile corpus: every malformed file fails with its own rule") {
  TempDir dir;
  int n = 0;
  for (const Hostile& h : hostile_corpus()) {
    CAPTURE(std::string(h.what));
    const std::string name = "hostile-" + std::to_string(n++) + ".safetensors";
    const std::string msg = open_error(dir, name, h.bytes);
    CAPTURE(msg);
    REQUIRE(!msg.empty());
    CHECK(msg.find(h.error) != std::string::npos);
    CHECK(msg.rfind((dir / name).string() + ": ", 0) == 0);  // the file, first
    if (h.tensor) CHECK(msg.find("tensor \"" + std::string(h.tensor) + "\": ") != std::string::npos);
    // parse_header on the same bytes gives the same message (the fuzz target's entry point).
    const auto* p = reinterpret_cast<const uint8_t*>(h.bytes.data());
    try {
      parse_header({p, h.bytes.size()}, h.bytes.size(), name);
      FAIL("parse_header accepted it");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find(h.error) != std::string::npos);
    }
  }
  CHECK(n >= 40);
}

TEST_CASE("safetensors reader: accepts what the reference accepts") {
  TempDir dir;
  // Leading whitespace, tensors listed out of offset order, a scalar, zero-size tensors sharing
  // an offset, a sub-byte dtype with whole bytes, no __metadata__, unaligned tensors.
  const std::string header = R"(  {"s":{"dtype":"F32","shape":[],"data_offsets":[3,7]},)"
                             R"("z1":{"dtype":"F16","shape":[0,5],"data_offsets":[3,3]},)"
                             R"("z0":{"dtype":"I64","shape":[4,0],"data_offsets":[3,3]},)"
                             R"("f4":{"dtype":"F4","shape":[2,3],"data_offsets":[0,3]}}    )";
  std::string bytes = raw_file(header, 0) + std::string("\x01\x02\x03", 3) + std::string("\x00\x00\x80\x3f", 4);
  put_file(dir / "ok.safetensors", bytes);
  const File f = File::open(dir / "ok.safetensors");
  REQUIRE(f.tensors().size() == 4);
  CHECK(f.tensors()[0].name == "f4");
  CHECK(f.tensors()[1].name == "z0");  // ties on offsets break by name
  CHECK(f.tensors()[2].name == "z1");
  CHECK(f.tensors()[3].name == "s");
  CHECK(f.header().metadata.empty());
  CHECK(f.header().data_start == 8 + header.size());
  const TensorInfo* s = f.find("s");
  REQUIRE(s);
  CHECK(s->numel() == 1);
  float v = 0;
  std::memcpy(&v, f.bytes(*s).data(), 4);
  CHECK(v == 1.0f);
  CHECK(f.find("z1")->numel() == 0);
  CHECK(f.bytes(*f.find("z1")).empty());
  CHECK(f.find("absent") == nullptr);
  CHECK(dtype_bits("F8_E4M3") == 8);
  CHECK(dtype_bits("F6_E2M3") == 6);
  CHECK(dtype_bits("BF16") == 16);
  CHECK(dtype_bits("Q4_K") == 0);
  // An empty header with no data is a valid (empty) file.
  put_file(dir / "empty.safetensors", raw_file("{}", 0));
  CHECK(File::open(dir / "empty.safetensors").tensors().empty());
}

TEST_CASE("safetensors reader: not a file") {
  TempDir dir;
  CHECK_THROWS_WITH_AS(File::open(dir / "missing.safetensors"), doctest::Contains("cannot open"), Error);
  CHECK_THROWS_WITH_AS(File::open(dir.path), doctest::Contains("not a regular file"), Error);
}

TEST_CASE("safetensors writer: round trip with metadata and pieces") {
  TempDir dir;
  Rng rng(7);
  std::vector<uint16_t> w(64 * 32);
  for (auto& x : w) x = uint16_t(rng.next());
  std::vector<uint8_t> absmax(5);
  for (auto& x : absmax) x = uint8_t(rng.next());
  std::vector<float> cb = {-1.0f, -0.25f, 0.25f, 1.0f};
  const fs::path out = dir / "model.safetensors";
  Writer wr(out,
            {{"a.weight", "BF16", {64, 32}}, {"a.absmax", "U8", {5}}, {"empty", "F32", {0, 7}}, {"cb", "F32", {4}}},
            {{"kbit.version", "1"}, {"note", "{\"bits\": 2}"}});
  CHECK(wr.file_size() > 64 * 32 * 2 + 5 + 16);
  const auto* wb = reinterpret_cast<const char*>(w.data());
  wr.write("a.weight", wb, 1000);       // a tensor in three pieces
  wr.write("a.weight", wb + 1000, 0);
  wr.write("a.weight", wb + 1000, w.size() * 2 - 1000);
  wr.write("a.absmax", absmax.data(), absmax.size());
  wr.write("cb", cb.data(), cb.size() * 4);  // "empty" needs no write
  wr.commit();
  CHECK(fs::file_size(out) == wr.file_size());

  const File f = File::open(out);
  REQUIRE(f.tensors().size() == 4);
  CHECK(f.tensors()[0].name == "a.weight");  // declared order = file order
  CHECK(f.tensors()[3].name == "cb");
  CHECK(f.header().metadata.at("format") == "pt");
  CHECK(f.header().metadata.at("kbit.version") == "1");
  CHECK(f.header().metadata.at("note") == "{\"bits\": 2}");
  CHECK(f.find("a.weight")->shape == std::vector<int64_t>{64, 32});
  CHECK(f.find("a.weight")->dtype == "BF16");
  const auto a = f.bytes(*f.find("a.weight"));
  REQUIRE(a.size() == w.size() * 2);
  CHECK(std::memcmp(a.data(), w.data(), a.size()) == 0);
  CHECK(std::memcmp(f.bytes(*f.find("a.absmax")).data(), absmax.data(), 5) == 0);
  CHECK(std::memcmp(f.bytes(*f.find("cb")).data(), cb.data(), 16) == 0);
  CHECK(f.find("empty")->shape == std::vector<int64_t>{0, 7});
  f.prefetch(*f.find("a.weight"));
  f.release(*f.find("a.weight"));  // pages dropped; the bytes read back the same
  CHECK(std::memcmp(f.bytes(*f.find("a.weight")).data(), w.data(), a.size()) == 0);
  CHECK(dir.entries() == std::vector<std::string>{"model.safetensors"});  // no temp left
}

TEST_CASE("safetensors writer: header padded with spaces to 8 bytes") {
  TempDir dir;
  for (int len = 1; len <= 9; ++len) {
    const fs::path out = dir / "p.safetensors";
    const std::string name(size_t(len), 'n');
    Writer wr(out, {{name, "U8", {3}}});
    wr.write(name, "abc", 3);
    wr.commit();
    const std::string bytes = get_file(out);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | uint8_t(bytes[size_t(i)]);
    CAPTURE(len);
    CHECK(n % 8 == 0);
    CHECK(bytes[8] == '{');
    const size_t close = bytes.rfind('}', 8 + n - 1);
    for (size_t i = close + 1; i < 8 + n; ++i) CHECK(bytes[i] == ' ');
    CHECK(bytes.substr(8 + n) == "abc");
    CHECK(File::open(out).header().data_start == 8 + n);
  }
}

TEST_CASE("safetensors writer: uncommitted writes leave nothing under the final name") {
  TempDir dir;
  const fs::path out = dir / "model.safetensors";
  fs::path temp;
  {
    Writer wr(out, {{"x", "F32", {4}}});
    temp = wr.temp_path();
    CHECK(temp.parent_path() == dir.path);
    CHECK(temp.filename().string().rfind(".model.safetensors.tmp-", 0) == 0);
    CHECK(fs::exists(temp));
    CHECK(!fs::exists(out));
    const float x[4] = {1, 2, 3, 4};
    wr.write("x", x, sizeof x);
    CHECK(!fs::exists(out));  // complete but not committed
  }
  CHECK(!fs::exists(temp));
  CHECK(!fs::exists(out));
  CHECK(dir.entries().empty());

  // An existing file is untouched by a writer that fails part way.
  put_file(out, "old contents");
  try {
    Writer wr(out, {{"x", "F32", {4}}});
    wr.write("x", "12345678", 8);
    wr.write("x", "123456789", 9);  // one byte more than declared
    FAIL("accepted too many bytes");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("17 bytes written but F32 [4] holds 16") != std::string::npos);
  }
  CHECK(get_file(out) == "old contents");
  CHECK(dir.entries() == std::vector<std::string>{"model.safetensors"});

  // commit() replaces it.
  {
    Writer wr(out, {{"x", "U8", {2}}});
    wr.write("x", "ab", 2);
    wr.commit();
  }
  CHECK(File::open(out).find("x")->nbytes() == 2);
  CHECK(dir.entries() == std::vector<std::string>{"model.safetensors"});
}

TEST_CASE("safetensors writer: misuse is refused by name") {
  TempDir dir;
  const fs::path out = dir / "m.safetensors";
  auto err = [](auto&& fn) -> std::string {
    try {
      fn();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  CHECK(err([&] { Writer w(out, {{"a", "U8", {1}}, {"a", "U8", {1}}}); }).find("tensor \"a\": declared twice") != std::string::npos);
  CHECK(err([&] { Writer w(out, {{"a", "Q4", {1}}}); }).find("tensor \"a\": unknown dtype \"Q4\"") != std::string::npos);
  CHECK(err([&] { Writer w(out, {{"a", "U8", {-1}}}); }).find("negative dimension") != std::string::npos);
  CHECK(err([&] { Writer w(out, {{"a", "F4", {3}}}); }).find("not a whole number of bytes") != std::string::npos);
  CHECK(err([&] { Writer w(out, {{"__metadata__", "U8", {1}}}); }).find("cannot be named") != std::string::npos);
  CHECK(err([&] { Writer w(out, {}, {{"format", "tf"}}); }).find("\"format\" must be \"pt\"") != std::string::npos);
  CHECK(err([&] { Writer w(out, {{"bad\xff", "U8", {1}}}); }).find("must be UTF-8") != std::string::npos);
  CHECK(err([&] { Writer w(dir.path, {}); }).find("is a directory") != std::string::npos);
  CHECK(dir.entries().empty());

  Writer wr(out, {{"a", "U8", {2}}, {"b", "U8", {2}}, {"c", "U8", {2}}});
  CHECK(err([&] { wr.write("zz", "x", 1); }).find("tensor \"zz\": write() of a tensor that was not declared") != std::string::npos);
  CHECK(err([&] { wr.write("b", "xx", 2); }).find("tensor \"b\": written out of order: tensor \"a\" is next") != std::string::npos);
  wr.write("a", "x", 1);
  CHECK(err([&] { wr.write("b", "xx", 2); }).find("(1 of 2 bytes written)") != std::string::npos);
  wr.write("a", "x", 1);
  CHECK(err([&] { wr.write("a", "x", 1); }).find("tensor \"a\": already written") != std::string::npos);
  wr.write("b", "xx", 2);
  CHECK(err([&] { wr.commit(); }).find("tensor \"c\": incomplete at commit(): 0 of 2 bytes") != std::string::npos);
  wr.write("c", "xx", 2);
  wr.commit();
  CHECK(err([&] { wr.write("c", "x", 1); }).find("after commit()") != std::string::npos);
  CHECK(err([&] { wr.commit(); }).find("after commit()") != std::string::npos);
  CHECK(File::open(out).tensors().size() == 3);
}

TEST_CASE("safetensors writer: unwritable output leaves no file") {
  TempDir dir;
  auto msg_of = [](const fs::path& p) -> std::string {
    try {
      Writer wr(p, {{"x", "U8", {1}}});
      wr.write("x", "x", 1);
      wr.commit();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  const std::string missing = msg_of(dir / "no-such-dir" / "m.safetensors");
  CHECK(missing.find("cannot create the temporary file") != std::string::npos);
  CHECK(missing.find("the output directory does not exist") != std::string::npos);
  put_file(dir / "file", "x");
  CHECK(msg_of(dir / "file" / "m.safetensors").find("Not a directory") != std::string::npos);
  CHECK(dir.entries() == std::vector<std::string>{"file"});

  // A directory without write permission (root ignores mode bits: use sysfs, read-only for all).
  fs::path ro;
  if (::geteuid() != 0) {
    ro = dir / "ro";
    fs::create_directory(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  } else if (fs::is_directory("/sys")) {
    ro = "/sys";
  }
  if (ro.empty()) {
    MESSAGE("no read-only directory available here: the permission case is not exercised");
  } else {
    const std::string m = msg_of(ro / "kbit-test-out.safetensors");
    CAPTURE(m);
    CHECK(!m.empty());
    if (m.find("Permission denied") == std::string::npos && m.find("Read-only") == std::string::npos)
      MESSAGE("the directory was not read-only after all: " << m);
    else
      CHECK(m.find("is the output directory writable?") != std::string::npos);
    CHECK(!fs::exists(ro / "kbit-test-out.safetensors"));
  }
}

TEST_CASE("safetensors writer: an I/O error mid-write abandons the file") {
  TempDir dir;
  const fs::path out = dir / "big.safetensors";
  // A file-size limit makes write() fail with EFBIG, as a full disk fails with ENOSPC.
  struct rlimit old {};
  REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
  auto old_handler = signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = old;
  lim.rlim_cur = 1 << 20;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0);
  std::string msg;
  {
    const std::vector<char> chunk(1 << 20, 'x');
    try {
      Writer wr(out, {{"x", "U8", {4 << 20}}});
      for (int i = 0; i < 4; ++i) wr.write("x", chunk.data(), chunk.size());
      wr.commit();
    } catch (const Error& e) {
      msg = e.what();
    }
  }
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, old_handler);
  CAPTURE(msg);
  CHECK(msg.find("write failed: File too large") != std::string::npos);
  CHECK(msg.find(".big.safetensors.tmp-") != std::string::npos);
  CHECK(dir.entries().empty());
}

TEST_CASE("safetensors sort_by_alignment keeps every tensor aligned") {
  std::vector<Writer::Entry> e = {{"b.absmax", "U8", {3}}, {"a.packed", "I32", {2}}, {"w", "BF16", {1}},
                                  {"a.absmax", "U8", {5}}, {"cb", "F32", {4}},     {"big", "F64", {1}}};
  sort_by_alignment(e);
  std::vector<std::string> names;
  for (const auto& x : e) names.push_back(x.name);
  CHECK(names == std::vector<std::string>{"big", "a.packed", "cb", "w", "a.absmax", "b.absmax"});
}

namespace {

// Writes shard `file` in dir with the named U8 [2] tensors.
void write_shard(const fs::path& dir, const std::string& file, const std::vector<std::string>& tensors) {
  std::vector<Writer::Entry> e;
  for (const auto& t : tensors) e.push_back({t, "U8", {2}});
  Writer w(dir / file, e);
  for (const auto& t : tensors) w.write(t, "ab", 2);
  w.commit();
}

}  // namespace

TEST_CASE("checkpoint: sharded index round trip and single-file forms") {
  TempDir dir;
  write_shard(dir.path, "model-00001-of-00002.safetensors", {"a", "b"});
  write_shard(dir.path, "model-00002-of-00002.safetensors", {"c"});
  write_index(dir.path, {{"a", "model-00001-of-00002.safetensors"}, {"b", "model-00001-of-00002.safetensors"},
                         {"c", "model-00002-of-00002.safetensors"}},
              6);
  const Checkpoint ck = Checkpoint::open(dir.path);
  CHECK(ck.sharded());
  CHECK(ck.root() == dir.path);
  CHECK(ck.shards().size() == 2);
  CHECK(ck.names() == std::vector<std::string>{"a", "b", "c"});
  const auto c = ck.find("c");
  REQUIRE(c.file);
  CHECK(c.file->path().filename() == "model-00002-of-00002.safetensors");
  CHECK(c.info->name == "c");
  CHECK(ck.find("d").file == nullptr);
  CHECK(ck.warnings().empty());
  CHECK(Checkpoint::open(dir / kIndexName).names().size() == 3);  // the index file itself

  // A single file, and a directory holding model.safetensors.
  const Checkpoint one = Checkpoint::open(dir / "model-00002-of-00002.safetensors");
  CHECK(!one.sharded());
  CHECK(one.root() == dir.path);
  CHECK(one.names() == std::vector<std::string>{"c"});
  const fs::path cwd = fs::current_path();
  fs::current_path(dir.path);
  CHECK(Checkpoint::open("model-00002-of-00002.safetensors").root() == ".");  // a bare file name
  fs::current_path(cwd);
  TempDir single;
  write_shard(single.path, "model.safetensors", {"x"});
  CHECK(Checkpoint::open(single.path).names() == std::vector<std::string>{"x"});

  // A tensor in a shard but not in the index is kept, with a warning.
  TempDir extra;
  write_shard(extra.path, "s1.safetensors", {"a", "stray"});
  write_index(extra.path, {{"a", "s1.safetensors"}}, 2);
  const Checkpoint ex = Checkpoint::open(extra.path);
  CHECK(ex.names().size() == 2);
  REQUIRE(ex.warnings().size() == 1);
  CHECK(ex.warnings()[0].find("tensor \"stray\" is not listed in") != std::string::npos);
}

TEST_CASE("checkpoint hostile: index and shard mismatches are named") {
  TempDir dir;
  write_shard(dir.path, "s1.safetensors", {"a", "b"});
  write_shard(dir.path, "s2.safetensors", {"c"});
  auto index = [&](const std::string& text) { put_file(dir / kIndexName, text); };
  struct Case {
    const char* what;
    std::string index;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"shard missing", R"({"weight_map":{"a":"s1.safetensors","b":"s1.safetensors","c":"s3.safetensors"}})",
       "shard \"s3.safetensors\" (listed for 1 tensors, e.g. \"c\") does not exist"},
      {"tensor in the wrong shard", R"({"weight_map":{"a":"s1.safetensors","b":"s1.safetensors","c":"s1.safetensors"}})",
       "tensor \"c\" is indexed in shard \"s1.safetensors\" but it is in shard \"s2.safetensors\""},
      {"tensor nowhere", R"({"weight_map":{"a":"s1.safetensors","b":"s1.safetensors","c":"s2.safetensors","d":"s2.safetensors"}})",
       "tensor \"d\" is indexed in shard \"s2.safetensors\" but that file does not hold it"},
      {"duplicate index key", R"({"weight_map":{"a":"s1.safetensors","a":"s2.safetensors"}})", "duplicate key \"a\""},
      {"no weight_map", R"({"metadata":{"total_size":6}})", "no \"weight_map\" object"},
      {"weight_map empty", R"({"weight_map":{}})", "weight_map is empty"},
      {"shard outside the directory", R"({"weight_map":{"a":"../s1.safetensors"}})", "is not a file name inside the checkpoint directory"},
      {"absolute shard", R"({"weight_map":{"a":"/etc/passwd"}})", "is not a file name inside the checkpoint directory"},
      {"shard not a string", R"({"weight_map":{"a":1}})", "weight_map entry of tensor \"a\" is an integer"},
      {"index not JSON", R"({"weight_map":)", "index is not valid JSON"},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.what));
    index(c.index);
    const std::string msg = checkpoint_error(dir.path);
    CAPTURE(msg);
    CHECK(msg.find(c.error) != std::string::npos);
    CHECK(msg.find(kIndexName) != std::string::npos);
  }

  // The same tensor in two shards.
  index(R"({"weight_map":{"a":"s1.safetensors","b":"s1.safetensors","c":"s2.safetensors","d":"s3.safetensors"}})");
  write_shard(dir.path, "s3.safetensors", {"c", "d"});
  CHECK(checkpoint_error(dir.path).find("tensor \"c\" appears in two shards: s2.safetensors and s3.safetensors") !=
        std::string::npos);

  // A malformed shard is reported with its own file name.
  index(R"({"weight_map":{"a":"s1.safetensors","b":"s1.safetensors","c":"s2.safetensors"}})");
  put_file(dir / "s2.safetensors", get_file(dir / "s2.safetensors") + "x");
  const std::string bad = checkpoint_error(dir.path);
  CHECK(bad.find("s2.safetensors: 1 trailing bytes") != std::string::npos);

  // Not a checkpoint at all.
  TempDir empty;
  CHECK(checkpoint_error(empty.path).find("no model.safetensors or model.safetensors.index.json") != std::string::npos);
  CHECK(checkpoint_error(empty / "nope").find("does not exist") != std::string::npos);
}

TEST_CASE("safetensors write_text_atomic replaces a file whole") {
  TempDir dir;
  write_text_atomic(dir / "config.json", "{\"a\": 1}\n");
  CHECK(get_file(dir / "config.json") == "{\"a\": 1}\n");
  write_text_atomic(dir / "config.json", "{}");
  CHECK(get_file(dir / "config.json") == "{}");
  CHECK(dir.entries() == std::vector<std::string>{"config.json"});
  CHECK_THROWS_WITH_AS(write_text_atomic(dir / "no" / "x.json", "{}"), doctest::Contains("does not exist"), Error);
}
