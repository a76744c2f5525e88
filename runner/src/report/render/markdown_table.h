#pragma once
// GitHub-flavoured markdown tables: a header row, an alignment row, and cells escaped so a value
// can never break the table (table_cell.h).
#include <string>
#include <vector>

namespace mt {

enum class Align { Left, Right };

struct Column {
  std::string title;
  Align align = Align::Left;
};

class MarkdownTable {
 public:
  explicit MarkdownTable(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  bool empty() const { return rows_.empty(); }
  // Leaves out each of these columns whose every cell is one of `fillers` ("-", "reference"): a
  // column that says the same nothing in every row.
  void drop_uninformative(const std::vector<std::string>& titles, const std::vector<std::string>& fillers);
  bool has_column(const std::string& title) const;
  // Leaves out each of these columns that holds one value in every row (of two rows or more), and
  // returns them as (title, value), in column order, for the text to say once.
  std::vector<std::pair<std::string, std::string>> drop_constant(const std::vector<std::string>& titles);
  std::string render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Inline code, safe inside a table cell.
std::string code(const std::string& text);

}  // namespace mt
