#include "core/cli/closest_names.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <optional>
#include <utility>

namespace mt {
namespace {

constexpr std::size_t kMostNames = 3;
constexpr std::size_t kLongestWord = 64;  // longer is no typo of a flag, and would cost its square

// Lower case, '_' as '-', without leading dashes: "--N_Layers" and "n-layers" are one name.
std::string plain(const std::string& word) {
  std::string out;
  for (char c : word.substr(std::min(word.find_first_not_of('-'), word.size())))
    out += c == '_' ? '-' : char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Insertions, deletions, substitutions and swaps of two neighbours each cost one edit.
std::size_t edits(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::vector<std::string> parts(const std::string& name) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t dash; (dash = name.find('-', start)) != std::string::npos; start = dash + 1)
    if (dash > start) out.push_back(name.substr(start, dash - start));
  if (start < name.size()) out.push_back(name.substr(start));
  return out;
}

// How many of the name's parts the word leaves out, where the word's parts are all among them, in
// order ("layers" of "n-layers": 1); nothing where they are not.
std::optional<std::size_t> parts_left_out(const std::string& word, const std::string& name) {
  const auto written = parts(word), known = parts(name);
  std::size_t k = 0;
  for (const auto& part : written) {
    while (k < known.size() && known[k] != part) ++k;
    if (k == known.size()) return std::nullopt;
    ++k;
  }
  return known.size() - written.size();
}

// Whether the word is the initials of the name's two or more parts ("lr" of "learning-rate").
bool initials_of(const std::string& word, const std::string& name) {
  const auto known = parts(name);
  if (known.size() < 2 || word.size() != known.size()) return false;
  for (std::size_t i = 0; i < known.size(); ++i)
    if (known[i][0] != word[i]) return false;
  return true;
}

}  // namespace

std::vector<std::string> closest_names(const std::string& word, const std::vector<std::string>& known) {
  const std::string written = plain(word);
  if (written.empty() || written.size() > kLongestWord) return {};
  // A spelling within a few edits (one for short words) ranks by its edits; a name's initials after
  // every typo; a word that names some of a name's parts after those, by how many parts it leaves out.
  const std::size_t most_edits = written.size() <= 4 ? 1 : written.size() <= 9 ? 2 : 3;
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const auto& name : known) {
    const std::string candidate = plain(name);
    if (candidate.size() > kLongestWord) continue;
    if (const std::size_t e = edits(written, candidate); e <= most_edits) ranked.emplace_back(e, name);
    else if (initials_of(written, candidate)) ranked.emplace_back(most_edits + 1, name);
    else if (const auto left_out = parts_left_out(written, candidate))
      ranked.emplace_back(most_edits + 1 + *left_out, name);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [rank, name] : ranked)
    if (out.size() < kMostNames) out.push_back(name);
  return out;
}

std::string did_you_mean_text(const std::string& word, const std::vector<std::string>& known) {
  const std::vector<std::string> names = closest_names(word, known);
  if (names.empty()) return "";
  std::string text = " (did you mean '" + names[0] + "'";
  for (std::size_t i = 1; i < names.size(); ++i) text += (i + 1 == names.size() ? " or '" : ", '") + names[i] + "'";
  return text + "?)";
}

}  // namespace mt
