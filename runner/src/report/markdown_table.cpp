#include "report/markdown_table.h"

namespace mt {
namespace {

std::string escape_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out.empty() ? " " : out;
}

}  // namespace

std::string MarkdownTable::render() const {
  std::string out = "|";
  for (const auto& c : columns_) out += " " + escape_cell(c.title) + " |";
  out += "\n|";
  for (const auto& c : columns_) out += c.align == Align::Right ? " --: |" : " :-- |";
  out += "\n";
  for (const auto& row : rows_) {
    out += "|";
    for (size_t i = 0; i < columns_.size(); ++i) out += " " + escape_cell(i < row.size() ? row[i] : "") + " |";
    out += "\n";
  }
  return out;
}

std::string code(const std::string& text) { return "`" + text + "`"; }

}  // namespace mt
