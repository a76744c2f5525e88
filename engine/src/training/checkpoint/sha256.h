// SHA-256 (OpenSSL's libcrypto) as lowercase hex: checkpoint files, configuration fingerprints.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace mt {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(const void* data, std::size_t bytes);
  std::string hex();  // finishes the digest

 private:
  struct State;
  State* state_;
};

std::string sha256_hex(const void* data, std::size_t bytes);
std::string sha256_hex(const std::string& text);
// Throws std::runtime_error naming the file when it cannot be read.
std::string sha256_file(const std::filesystem::path& file);

}  // namespace mt
