#include "report/markdown_table.h"

#include "table_cell.h"

namespace mt {

std::string MarkdownTable::render() const {
  std::string out = "|";
  for (const auto& c : columns_) out += " " + markdown_cell(c.title) + " |";
  out += "\n|";
  for (const auto& c : columns_) out += c.align == Align::Right ? " --: |" : " :-- |";
  out += "\n";
  for (const auto& row : rows_) {
    out += "|";
    for (size_t i = 0; i < columns_.size(); ++i) out += " " + markdown_cell(i < row.size() ? row[i] : "") + " |";
    out += "\n";
  }
  return out;
}

std::string code(const std::string& text) { return "`" + text + "`"; }

}  // namespace mt
