#include "experiment/diagnostic.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "experiment/yaml_anchors.h"

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

std::string with_source_line(const Diagnostic& d) {
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

// The anchors of each file the diagnostics name, read once per file.
class AnchorsByFile {
 public:
  const std::vector<AliasedAnchor>& of(const std::string& file) {
    auto [it, added] = files_.try_emplace(file);
    if (added) it->second = aliased_anchors(file);
    return it->second;
  }

 private:
  std::map<std::string, std::vector<AliasedAnchor>> files_;
};

}  // namespace

std::string format_diagnostic(const Diagnostic& d) {
  if (d.pos.line <= 0) return with_source_line(d);
  return with_source_line(d) + alias_notes(d.file, aliased_anchors(d.file), d.pos);
}

std::string format_diagnostics(const std::vector<Diagnostic>& ds) {
  AnchorsByFile anchors;
  // A value used through aliases is checked once per use, each time at the anchor: the same
  // problem at the same place is said once, with the aliases named.
  std::set<std::tuple<std::string, int, int, std::string>> said;
  std::string out;
  std::size_t shown = 0, more = 0;
  for (const Diagnostic& d : ds) {
    const std::string notes = d.pos.line > 0 ? alias_notes(d.file, anchors.of(d.file), d.pos) : "";
    if (!notes.empty() && !said.emplace(d.file, d.pos.line, d.pos.column, d.message).second) continue;
    if (shown == kShownDiagnostics) {
      ++more;
      continue;
    }
    out += (shown++ == 0 ? "" : "\n") + with_source_line(d) + notes;
  }
  if (more > 0) out += fmt::format("\n... and {} more problems", more);
  return out;
}

}  // namespace mt
