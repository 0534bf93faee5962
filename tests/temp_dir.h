// A fresh temporary directory per test, removed (with whatever the test left in it, read-only
// files included) when it goes out of scope.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace kbit::test {

class TempDir {
 public:
  explicit TempDir(const std::string& tag = "kbit-test") {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           (tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path, ec);
  }
  std::filesystem::path operator/(const std::string& name) const { return path / name; }
  // File names directly inside the directory.
  std::vector<std::string> entries() const {
    std::vector<std::string> v;
    for (const auto& e : std::filesystem::directory_iterator(path)) v.push_back(e.path().filename().string());
    return v;
  }

  std::filesystem::path path;
};

}  // namespace kbit::test
