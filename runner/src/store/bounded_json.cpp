#include "store/bounded_json.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string_view>

#include <fmt/format.h>

namespace mt {
namespace {

bool token_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-'; }

// nan, inf or infinity in any case, with an optional sign: what Python and printf write.
bool non_finite_word(std::string_view token) {
  if (!token.empty() && (token[0] == '-' || token[0] == '+')) token.remove_prefix(1);
  std::string lower;
  for (char c : token) lower += char(std::tolower(static_cast<unsigned char>(c)));
  return lower == "nan" || lower == "inf" || lower == "infinity";
}

// A number JSON can spell but a double cannot hold, such as 1e400.
bool overflowing_number(std::string_view token) {
  const size_t digit = token[0] == '-' ? 1 : 0;
  if (digit >= token.size() || !std::isdigit(static_cast<unsigned char>(token[digit]))) return false;
  return !std::isfinite(std::strtod(std::string(token).c_str(), nullptr));
}

// One linear pass outside strings: checks the nesting and writes non-finite numbers as null.
// Returns the problem, or "".
std::string sanitize(std::string& text, int max_depth, int& replaced) {
  std::string out;
  size_t copied = 0;  // text before this is in `out` (only once something was replaced)
  int depth = 0;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return fmt::format("nests deeper than {} levels", max_depth);
      ++i;
    } else if (c == '}' || c == ']') {
      --depth;
      ++i;
    } else if (token_char(c)) {
      size_t end = i;
      while (end < text.size() && token_char(text[end])) ++end;
      std::string_view token(text.data() + i, end - i);
      if (non_finite_word(token) || overflowing_number(token)) {
        out.append(text, copied, i - copied);
        out += "null";
        copied = end;
        ++replaced;
      }
      i = end;
    } else {
      ++i;
    }
  }
  if (replaced > 0) {
    out.append(text, copied, std::string::npos);
    text = std::move(out);
  }
  return "";
}

std::string size_text(std::uint64_t bytes) {
  return bytes % (1 << 20) == 0 ? fmt::format("{} MiB", bytes >> 20) : fmt::format("{} bytes", bytes);
}

}  // namespace

UntrustedJson parse_untrusted_json(std::string text, const JsonLimits& limits) {
  UntrustedJson result;
  result.document = nlohmann::json(nlohmann::json::value_t::discarded);
  if (text.size() > limits.max_bytes) {
    result.problem = "larger than " + size_text(limits.max_bytes);
    return result;
  }
  result.problem = sanitize(text, limits.max_depth, result.non_finite);
  if (!result.problem.empty()) return result;
  result.document = nlohmann::json::parse(text, nullptr, false);
  result.text = std::move(text);
  return result;
}

UntrustedJson read_untrusted_json(const std::filesystem::path& file, const JsonLimits& limits) {
  std::error_code ec;
  // A FIFO or device (a trial can put anything at its result path) would block or never end.
  if (!std::filesystem::is_regular_file(file, ec)) {
    UntrustedJson result;
    result.document = nlohmann::json(nlohmann::json::value_t::discarded);
    result.problem = "not a regular file";
    return result;
  }
  std::ifstream in(file, std::ios::binary);
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= limits.max_bytes && in.read(chunk, sizeof chunk).gcount() > 0) {
    text.append(chunk, size_t(in.gcount()));
  }
  return parse_untrusted_json(std::move(text), limits);  // refuses what went past the limit
}

}  // namespace mt
