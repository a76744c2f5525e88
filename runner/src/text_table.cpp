#include "text_table.h"

#include "table_cell.h"

#include <algorithm>
#include <cctype>

namespace mt {
namespace {

// A number ("12.5", "-3e-05", "40 %"), a mean ± std, or "-" standing for a missing number: set to the
// right. A unit alone ("%", "e") is text.
bool looks_numeric(const std::string& s) {
  if (s == "-" || s.find("±") != std::string::npos) return true;
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  return std::any_of(s.begin(), s.end(), digit) && std::all_of(s.begin(), s.end(), [&](char c) {
           return digit(c) || c == '.' || c == '-' || c == '+' || c == 'e' || c == ' ' || c == '%';
         });
}

}  // namespace

std::string TextTable::render() const {
  std::vector<size_t> width(header_.size(), 0);
  // A newline or an escape sequence in a value must not break the table: render them visibly.
  std::vector<std::string> header;
  for (const auto& cell : header_) header.push_back(escape_control_characters(cell));
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : rows_) {
    rows.emplace_back();
    for (const auto& cell : row) rows.back().push_back(escape_control_characters(cell));
  }
  auto display_width = [](const std::string& s) {
    // Count code points, not bytes, so "±" lines up.
    return size_t(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
  };
  for (size_t i = 0; i < header_.size(); ++i) width[i] = display_width(header[i]);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], display_width(row[i]));
  }
  auto render_row = [&](const std::vector<std::string>& row, bool is_header) {
    std::string line;
    for (size_t i = 0; i < width.size(); ++i) {
      std::string cell = i < row.size() ? row[i] : "";
      std::string pad(width[i] - display_width(cell), ' ');
      bool right = !is_header && looks_numeric(cell);
      line += right ? pad + cell : cell + pad;
      if (i + 1 < width.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };
  std::string out = render_row(header, true);
  std::string rule;
  for (size_t i = 0; i < width.size(); ++i) rule += std::string(width[i], '-') + (i + 1 < width.size() ? "  " : "");
  out += rule + "\n";
  for (const auto& row : rows) out += render_row(row, false);
  return out;
}

}  // namespace mt
