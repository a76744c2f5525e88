#include "experiment/identity.h"

#include <cstdint>

#include <fmt/format.h>

namespace mt {

std::string content_hash(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", h);
}

}  // namespace mt
