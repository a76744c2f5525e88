#include "experiment/diagnostic.h"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

namespace mt {
namespace {

std::string source_line(const std::string& file, int line) {
  std::ifstream in(file);
  std::string text;
  for (int i = 1; i <= line && std::getline(in, text); ++i) {
    if (i == line) return text;
  }
  return {};
}

// Source lines longer than this are shown as a window around the column.
constexpr size_t kShownLine = 120;
// Past this many problems the rest are counted, not shown (each one rereads the file).
constexpr size_t kShownDiagnostics = 50;

}  // namespace

std::string format_diagnostic(const Diagnostic& d) {
  if (d.pos.line <= 0) return fmt::format("{}: {}", d.file, d.message);
  std::string out = fmt::format("{}:{}:{}: {}", d.file, d.pos.line, d.pos.column, d.message);
  std::string line = source_line(d.file, d.pos.line);
  if (line.empty()) return out;
  size_t caret = size_t(std::max(0, d.pos.column - 1));
  if (line.size() > kShownLine) {
    const size_t start = caret > kShownLine / 2 ? std::min(caret, line.size()) - kShownLine / 2 : 0;
    std::string shown = start > 0 ? "..." + line.substr(start, kShownLine) : line.substr(0, kShownLine);
    if (start + kShownLine < line.size()) shown += "...";
    caret = caret - start + (start > 0 ? 3 : 0);
    line = std::move(shown);
  }
  out += fmt::format("\n  {}\n  {}^", line, std::string(caret, ' '));
  return out;
}

std::string format_diagnostics(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (size_t i = 0; i < ds.size() && i < kShownDiagnostics; ++i) {
    if (!out.empty()) out += '\n';
    out += format_diagnostic(ds[i]);
  }
  if (ds.size() > kShownDiagnostics) out += fmt::format("\n... and {} more problems", ds.size() - kShownDiagnostics);
  return out;
}

}  // namespace mt
