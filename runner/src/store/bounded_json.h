#pragma once
// Reading a JSON file a trial wrote without trusting it: its size and nesting are bounded before
// it is parsed (so nothing downstream can run out of memory or stack on it), and non-finite
// numbers, which JSON cannot express but programs write anyway (Python's NaN and Infinity, C's
// nan and inf, 1e400), become null.
#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace mt {

struct JsonLimits {
  std::uint64_t max_bytes = std::uint64_t(64) << 20;
  int max_depth = 64;  // objects and arrays inside each other
};

struct UntrustedJson {
  nlohmann::json document;  // discarded when the text is not JSON or was refused
  std::string text;         // the text as read, non-finite numbers written as null; empty when refused
  std::string problem;      // why it was refused ("nests deeper than 64 levels"); empty otherwise
  int non_finite = 0;       // numbers written as null
};

UntrustedJson parse_untrusted_json(std::string text, const JsonLimits& limits = {});
// As above from a file; `problem` also says when it is larger than the limit.
UntrustedJson read_untrusted_json(const std::filesystem::path& file, const JsonLimits& limits = {});

}  // namespace mt
