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

// Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent
// transpositions each cost 1, so "fdsp" is one edit from "fsdp".
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// Source lines longer than this are shown as a window around the column.
constexpr size_t kShownLine = 120;
// Past this many problems the rest are counted, not shown (each one rereads the file).
constexpr size_t kShownDiagnostics = 50;
// Words longer than this are no typo of a name; the edit distance would cost their length squared.
constexpr size_t kLongestTypo = 64;

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

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.size() > kLongestTypo) return "";
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t dist = edit_distance(word, c);
    if (dist < best_distance) {
      best_distance = dist;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best = closest_match(word, candidates);
  return best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best);
}

}  // namespace mt
