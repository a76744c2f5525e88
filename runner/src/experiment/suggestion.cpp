#include "experiment/suggestion.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include <fmt/format.h>

namespace mt {
namespace {

// Words longer than this are no typo of a name; the edit distance would cost their length squared.
constexpr size_t kLongestTypo = 64;

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
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// The spelling variants of one name written alike: lower case, '-' as '_', no leading dashes (an
// engine flag written as a parameter: "--grad-accum-steps").
std::string normalized(const std::string& word) {
  std::string out;
  for (char c : word.substr(std::min(word.find_first_not_of('-'), word.size()))) {
    out += c == '-' ? '_' : char(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::vector<std::string> parts_of(const std::string& name) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : name) {
    if (c == '_' || c == '.') {
      if (!part.empty()) parts.push_back(std::move(part));
      part.clear();
    } else {
      part += c;
    }
  }
  if (!part.empty()) parts.push_back(std::move(part));
  return parts;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// One written part stands for one part of the name: equal, or either a shortening of the other
// ("accum" and "accumulation") when the shorter has at least two letters.
bool part_matches(const std::string& written, const std::string& known) {
  if (written == known) return true;
  const std::string& shorter = written.size() < known.size() ? written : known;
  const std::string& longer = written.size() < known.size() ? known : written;
  return shorter.size() >= 2 && starts_with(longer, shorter);
}

// How many parts of the name `written` leaves out when its parts stand, in order, for parts of the
// name — each one part, or the initials of two or more consecutive parts ("lr" for
// "learning_rate") — or nullopt when they do not.
std::optional<size_t> parts_left_out(const std::vector<std::string>& written, size_t w,
                                     const std::vector<std::string>& known, size_t k) {
  if (w == written.size()) return known.size() - k;
  std::optional<size_t> best;
  auto consider = [&](std::optional<size_t> left_out) {
    if (left_out && (!best || *left_out < *best)) best = left_out;
  };
  for (size_t start = k; start < known.size(); ++start) {
    const size_t skipped = start - k;
    if (part_matches(written[w], known[start])) {
      if (auto rest = parts_left_out(written, w + 1, known, start + 1)) consider(skipped + *rest);
    }
    std::string initials;
    for (size_t end = start; end < known.size() && initials.size() < written[w].size(); ++end) {
      initials += known[end][0];
      if (initials.size() >= 2 && initials == written[w]) {
        if (auto rest = parts_left_out(written, w + 1, known, end + 1)) consider(skipped + *rest);
      }
    }
  }
  return best;
}

// The known name is an abbreviation of what was written out ("db" of "database", "dir" of
// "directory"): one part of at least two letters, at most half as long, its letters in order in the
// word from its first.
bool abbreviates(const std::string& known, const std::string& written) {
  if (known.size() < 2 || 2 * known.size() > written.size() || known.find('_') != std::string::npos ||
      known[0] != written[0]) {
    return false;
  }
  size_t k = 0;
  for (char c : written) k += k < known.size() && c == known[k];
  return k == known.size();
}

// A candidate and how far it is from what was written: smaller is closer.
struct Scored {
  size_t distance;
  size_t order;  // the candidate's place in the list, so that ties keep the caller's order
  const std::string* name;
};

std::vector<std::string> best_of(std::vector<Scored> scored, bool only_the_closest) {
  std::sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    return a.distance != b.distance ? a.distance < b.distance : a.order < b.order;
  });
  std::vector<std::string> out;
  for (const auto& s : scored) {
    if (out.size() == kMostSuggestions || (only_the_closest && s.distance != scored.front().distance)) break;
    out.push_back(*s.name);
  }
  return out;
}

}  // namespace

std::vector<std::string> suggestions(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.size() > kLongestTypo) return {};
  const std::string written = normalized(word);
  // The same name spelt another way.
  for (const auto& c : candidates) {
    if (normalized(c) == written && c != word) return {c};
  }
  // A typo: the one closest in spelling, if it is close enough.
  std::vector<Scored> typos;
  const size_t typo_limit = std::max<size_t>(2, written.size() / 3);
  for (size_t i = 0; i < candidates.size(); ++i) {
    const size_t distance = edit_distance(written, normalized(candidates[i]));
    if (distance <= typo_limit) typos.push_back({distance, i, &candidates[i]});
  }
  if (!typos.empty()) return {best_of(typos, /*only_the_closest=*/true).front()};
  // An abbreviation or a part of the name: those leaving out the fewest parts, all of them when
  // several are as close (up to kMostSuggestions).
  std::vector<Scored> shortened;
  const auto written_parts = parts_of(written);
  if (written_parts.empty()) return {};
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (auto left_out = parts_left_out(written_parts, 0, parts_of(normalized(candidates[i])), 0)) {
      shortened.push_back({*left_out, i, &candidates[i]});
    }
  }
  if (!shortened.empty()) return best_of(shortened, /*only_the_closest=*/true);
  // What was written out, where the name is its abbreviation: the longest such name first.
  std::vector<Scored> abbreviations;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string known = normalized(candidates[i]);
    if (abbreviates(known, written)) abbreviations.push_back({written.size() - known.size(), i, &candidates[i]});
  }
  return best_of(abbreviations, /*only_the_closest=*/true);
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  auto found = suggestions(word, candidates);
  return found.empty() ? "" : found.front();
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  auto found = suggestions(word, candidates);
  if (found.empty()) return "";
  std::string names = fmt::format("'{}'", found.back());
  if (found.size() > 1) {
    std::string rest;
    for (size_t i = 0; i + 1 < found.size(); ++i) rest += fmt::format("{}'{}'", i ? ", " : "", found[i]);
    names = rest + " or " + names;
  }
  return fmt::format(" (did you mean {}?)", names);
}

}  // namespace mt
