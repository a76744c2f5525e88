#include "table_cell.h"

#include <cmath>

#include <fmt/format.h>

namespace mt {

int auto_decimals(double value) {
  double magnitude = std::fabs(value);
  if (magnitude >= 1000 || magnitude == 0) return 0;
  if (magnitude >= 100) return 1;
  if (magnitude >= 1) return 2;
  if (magnitude >= 0.01) return 4;
  return 6;
}

std::string escape_control_characters(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

std::string markdown_cell(const std::string& text) {
  const std::string visible = escape_control_characters(text);
  std::string out;
  out.reserve(visible.size());
  for (std::size_t i = 0; i < visible.size(); ++i) {
    const char c = visible[i];
    if (c == '|') {
      out += "\\|";
    } else if (c == '\\' && i + 1 < visible.size() && visible[i + 1] == '|') {
      out += "\\\\";
    } else {
      out += c;
    }
  }
  return out.empty() ? " " : out;
}

}  // namespace mt
