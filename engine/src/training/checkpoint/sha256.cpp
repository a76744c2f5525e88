#include "training/checkpoint/sha256.h"

#include <openssl/evp.h>

#include <fstream>
#include <stdexcept>
#include <vector>

#include "training/checkpoint/durable_file.h"

namespace mt {

struct Sha256::State {
  EVP_MD_CTX* context = nullptr;
};

Sha256::Sha256() : state_(new State) {
  state_->context = EVP_MD_CTX_new();
  if (!state_->context || EVP_DigestInit_ex(state_->context, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256: OpenSSL could not start a digest");
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(state_->context);
  delete state_;
}

void Sha256::update(const void* data, std::size_t bytes) {
  if (bytes > 0 && EVP_DigestUpdate(state_->context, data, bytes) != 1)
    throw std::runtime_error("SHA-256: digest update failed");
}

std::string Sha256::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(state_->context, digest, &length) != 1)
    throw std::runtime_error("SHA-256: digest final failed");
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += digits[digest[i] >> 4];
    out += digits[digest[i] & 0xf];
  }
  return out;
}

std::string sha256_hex(const void* data, std::size_t bytes) {
  Sha256 digest;
  digest.update(data, bytes);
  return digest.hex();
}

std::string sha256_hex(const std::string& text) { return sha256_hex(text.data(), text.size()); }

std::string sha256_file(const std::filesystem::path& file) {
  require_regular_file(file);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + file.string() + "'");
  Sha256 digest;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    digest.update(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  return digest.hex();
}

}  // namespace mt
