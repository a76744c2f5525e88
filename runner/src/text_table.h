#pragma once
// Aligned plain-text tables for the terminal: numbers right-aligned, text left-aligned, control
// characters in cells escaped (table_cell.h).
#include <string>
#include <vector>

namespace mt {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.empty(); }
  std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace mt
