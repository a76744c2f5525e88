#include "experiment/identity.h"

#include <cstdint>

#include <fmt/format.h>

namespace mt {

std::uint64_t fnv1a(std::string_view text, std::uint64_t state) {
  for (unsigned char c : text) {
    state ^= c;
    state *= 0x100000001b3ULL;
  }
  return state;
}

std::string hash_hex(std::uint64_t state) { return fmt::format("{:016x}", state); }

std::string content_hash(std::string_view text) { return hash_hex(fnv1a(text)); }

}  // namespace mt
