#include "report/model/overlap_notes.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace mt {
namespace {

constexpr std::size_t kMostPairsNamed = 20;

struct Span {
  std::string label;
  std::string started, finished;  // ISO 8601 UTC, so that text order is time order
  std::string hosts;              // "a, b", or "" when not recorded
};

std::string trial_label(const ReportTrial& t) {
  std::vector<std::string> parts = {t.study};
  for (const auto& axis : t.axes) {
    if (!t.parameters.contains(axis)) continue;
    const auto& v = t.parameters[axis];
    parts.push_back(fmt::format("{}={}", axis, v.is_string() ? v.get<std::string>() : v.dump()));
  }
  parts.push_back(fmt::format("rep {}", t.repeat_index));
  return fmt::format("{}", fmt::join(parts, " "));
}

std::string host_list(const std::string& json) {
  const auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) return "";
  std::vector<std::string> hosts;
  for (const auto& h : j) {
    const std::string name = h.is_string() ? h.get<std::string>() : h.dump();
    if (std::find(hosts.begin(), hosts.end(), name) == hosts.end()) hosts.push_back(name);
  }
  return fmt::format("{}", fmt::join(hosts, ", "));
}

}  // namespace

std::string overlap_notes(Database& db, const ReportData& data) {
  std::vector<Span> spans;
  auto s = db.prepare(
      "SELECT a.started_at, a.finished_at, coalesce(p.hosts, '') FROM attempts a "
      "LEFT JOIN provenance p ON p.attempt_id = a.id WHERE a.id = ? AND a.finished_at IS NOT NULL");
  for (const auto& t : data.trials) {
    if (!t.succeeded_attempt) continue;
    s.reset();
    s.bind(1, t.succeeded_attempt_id);
    if (s.step()) spans.push_back({trial_label(t), s.text(0), s.text(1), host_list(s.text(2))});
  }
  std::vector<std::string> pairs;
  std::size_t count = 0;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    for (std::size_t j = i + 1; j < spans.size(); ++j) {
      const Span &a = spans[i], &b = spans[j];
      if (!(a.started < b.finished && b.started < a.finished)) continue;
      if (++count > kMostPairsNamed) continue;
      auto on = [](const Span& x) { return x.hosts.empty() ? "" : fmt::format(" (on {})", x.hosts); };
      pairs.push_back(fmt::format("`{}`{} with `{}`{}", a.label, on(a), b.label, on(b)));
    }
  }
  if (pairs.empty()) return "";
  std::string more = count > kMostPairsNamed ? fmt::format("; and {} more pairs", count - kMostPairsNamed) : "";
  return fmt::format(
      "**Trials that ran at the same time** (`parallel`; each with nodes, hosts or CPUs of its own): {}{}.\n\n",
      fmt::join(pairs, "; "), more);
}

}  // namespace mt
