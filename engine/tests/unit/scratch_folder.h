#pragma once
// A fresh, empty folder under the system's temporary folder for one test case, named by the test
// file's prefix, this process and the case, so that parallel test runs never share one.
#include <unistd.h>

#include <filesystem>
#include <string>

namespace mt::testing {

inline std::filesystem::path scratch_folder(const std::string& prefix, const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / (prefix + "_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace mt::testing
