#include "report/render/markdown_table.h"

#include <algorithm>

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

void MarkdownTable::drop_uninformative(const std::vector<std::string>& titles,
                                       const std::vector<std::string>& fillers) {
  for (size_t c = columns_.size(); c-- > 0;) {
    if (std::find(titles.begin(), titles.end(), columns_[c].title) == titles.end()) continue;
    const bool uninformative = std::all_of(rows_.begin(), rows_.end(), [&](const std::vector<std::string>& row) {
      return c >= row.size() || std::find(fillers.begin(), fillers.end(), row[c]) != fillers.end();
    });
    if (!uninformative) continue;
    columns_.erase(columns_.begin() + long(c));
    for (auto& row : rows_) {
      if (c < row.size()) row.erase(row.begin() + long(c));
    }
  }
}

std::vector<std::pair<std::string, std::string>> MarkdownTable::drop_constant(const std::vector<std::string>& titles) {
  std::vector<std::pair<std::string, std::string>> dropped;
  if (rows_.size() < 2) return dropped;
  for (size_t c = 0; c < columns_.size();) {
    const bool listed = std::find(titles.begin(), titles.end(), columns_[c].title) != titles.end();
    const bool constant = std::all_of(rows_.begin(), rows_.end(), [&](const std::vector<std::string>& row) {
      return c < row.size() && row[c] == rows_.front()[c];
    });
    if (!listed || !constant || rows_.front()[c].empty()) {
      ++c;
      continue;
    }
    dropped.emplace_back(columns_[c].title, rows_.front()[c]);
    columns_.erase(columns_.begin() + long(c));
    for (auto& row : rows_) row.erase(row.begin() + long(c));
  }
  return dropped;
}

bool MarkdownTable::has_column(const std::string& title) const {
  return std::any_of(columns_.begin(), columns_.end(), [&](const Column& c) { return c.title == title; });
}

std::string code(const std::string& text) { return "`" + text + "`"; }

}  // namespace mt
