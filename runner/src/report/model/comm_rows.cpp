#include "report/model/comm_rows.h"

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "checked_int.h"
#include "report/render/cells.h"
#include "report/sections/comm_table.h"
#include "json_fields.h"
#include "report/model/machine_context.h"

namespace mt {
namespace {

std::string variant_of(const nlohmann::json& row) {
  auto in_place = row.find("in_place");
  std::string out =
      in_place != row.end() && in_place->is_boolean() && in_place->get<bool>() ? "in_place" : "out_of_place";
  auto split = row.find("split");
  if (split != row.end() && split->is_string() && !split->get<std::string>().empty())
    out += " " + split->get<std::string>();
  return out;
}

// "Open MPI v4.1.4, package: …" -> "Open MPI v4.1.4".
std::string first_clause(const std::string& text) { return text.substr(0, text.find(',')); }

std::string version_of(const ReportTrial& t, const std::string& implementation) {
  const nlohmann::json env = trial_environment(t);
  if (implementation == "gloo") {
    std::string torch = environment_text(env, "torch");
    return torch.empty() ? "" : "PyTorch " + torch;
  }
  return first_clause(environment_text(env, "mpi"));
}

// Distinct values in order of appearance, joined by '/'.
void add_distinct(std::string& joined, std::set<std::string>& seen, const std::string& value) {
  if (value.empty() || !seen.insert(value).second) return;
  joined += (joined.empty() ? "" : "/") + value;
}

void add_row(CommPoint& point, const nlohmann::json& row, const ReportTrial& t) {
  point.trials.push_back(&t);
  if (auto it = row.find("unsupported"); it != row.end() && it->is_boolean() && it->get<bool>()) {
    auto reason = row.find("reason");
    point.unsupported = reason != row.end() && reason->is_string() ? reason->get<std::string>() : "unsupported";
    return;
  }
  // busbw as the program that measured it computed it (mtengine describe lists the engine's
  // factors); a row without one has none here either.
  auto algbw = number_field(row, "algbw_gbps");
  auto busbw = number_field(row, "busbw_gbps");
  if (auto v = number_field(row, "latency_us")) point.latency_us.push_back(*v);
  if (algbw) point.algbw_gbps.push_back(*algbw);
  if (busbw) point.busbw_gbps.push_back(*busbw);
  if (auto wrong = number_field(row, "wrong_values"))
    point.worst_wrong = std::max(point.worst_wrong.value_or(0), *wrong);
}

// The first description each operation's requested algorithm has among a study's results.
void add_requested(std::map<std::string, CommAlgorithm>& requested, const nlohmann::json& result) {
  auto it = result.find("requested_algorithms");
  if (it == result.end() || !it->is_object()) return;
  for (const auto& [operation, algorithm] : it->items()) {
    if (!algorithm.is_object() || text_field(algorithm, "name").empty()) continue;
    requested.try_emplace(operation, CommAlgorithm{text_field(algorithm, "name"), text_field(algorithm, "how"),
                                                   text_field(algorithm, "instead")});
  }
}

}  // namespace

bool CommSeriesKey::operator<(const CommSeriesKey& o) const {
  return std::tie(operation_order, operation, ranks, variant) <
         std::tie(o.operation_order, o.operation, o.ranks, o.variant);
}

bool has_result_rows(const Group& g) {
  return std::any_of(g.succeeded.begin(), g.succeeded.end(), [](const ReportTrial* t) { return !t->rows.empty(); });
}

CommData collect_comm_rows(const std::vector<const Group*>& groups) {
  CommData data;
  // Engine studies first, so their columns lead and ratios read engine ÷ peer.
  std::vector<const Group*> ordered;
  for (bool engine : {true, false}) {
    for (const Group* g : groups) {
      if ((g->workload != "command") == engine) ordered.push_back(g);
    }
  }
  std::map<std::string, size_t> study_of;
  std::map<std::string, size_t> operation_order;
  std::map<size_t, std::set<std::string>> versions_seen;
  std::map<size_t, std::set<std::string>> repeats;  // study -> its groups' "succeeded" or "succeeded/total"
  for (const Group* g : ordered) {
    auto [it, fresh] = study_of.try_emplace(g->label(), data.studies.size());
    if (fresh) {
      CommStudy study;
      study.label = g->label();
      study.engine = g->workload != "command";
      study.implementation = study.engine ? "mtengine" : g->result_text("implementation");
      data.studies.push_back(study);
    }
    const size_t s = it->second;
    repeats[s].insert(g->succeeded.size() == size_t(g->total) ? std::to_string(g->total)
                                                              : fmt::format("{}/{}", g->succeeded.size(), g->total));
    data.oversubscribed[g->ranks] = data.oversubscribed[g->ranks] || core_use(*g).oversubscribed();
    for (const ReportTrial* t : g->succeeded) {
      CommStudy& study = data.studies[s];
      const nlohmann::json environment = trial_environment(*t);
      add_distinct(study.version, versions_seen[s], version_of(*t, study.implementation));
      if (study.mpi_thread_level.empty()) study.mpi_thread_level = text_field(t->result, "mpi_thread_level");
      // Memory policies hold for a study only where every trial says so: the least over them.
      auto least = [&](std::optional<int64_t>& so_far, const char* key) {
        const int64_t said = checked_int64(number_field(environment, key).value_or(0)).value_or(0);
        so_far = std::min(so_far.value_or(said), said);
        return said;
      };
      least(study.freed_memory_kept_bytes, "freed_memory_kept_bytes");
      const int64_t advised = least(study.heap_huge_pages_bytes, "heap_huge_pages_bytes");
      const bool on_huge = advised > 0 || flag_field(environment, "malloc_huge_pages");
      study.all_on_huge_pages = study.all_on_huge_pages.value_or(true) && on_huge;
      if (study.engine) {
        add_requested(study.requested, t->result);
        if (auto copy = number_field(environment, "memory_copy_gbps_per_thread"); copy && *copy > 0)
          data.copy_gbps_per_thread[g->ranks].push_back(*copy);
      }
      for (const auto& row : t->rows) {
        auto op = row.find("operation");
        auto bytes = number_field(row, "bytes");
        if (op == row.end() || !op->is_string() || !bytes) continue;
        const std::string name = op->get<std::string>();
        // Operations in the order they first appear: the order the engine (or the peer) ran them.
        const int order = int(operation_order.try_emplace(name, operation_order.size()).first->second);
        CommSeriesKey key{order, name, g->ranks, variant_of(row)};
        add_row(data.series[key][*bytes][s], row, *t);
      }
    }
  }
  for (const auto& [s, counts] : repeats) {
    for (const auto& n : counts) data.n_text[s] += (data.n_text[s].empty() ? "" : ", ") + n;
  }
  return data;
}

std::optional<double> peer_goal(const std::string& implementation) {
  if (implementation == "bare_mpi") return 0.95;
  if (implementation == "gloo") return 5.0;
  return std::nullopt;
}

std::optional<double> peer_latency_goal(const std::string& implementation) {
  if (implementation == "bare_mpi") return 1.5;
  return std::nullopt;
}

namespace {

std::optional<CommRatio> ratio_of_means(const std::vector<double>& engine, const std::vector<double>& peer) {
  if (engine.empty() || peer.empty()) return std::nullopt;
  const double e = mean(engine), p = mean(peer);
  if (!(p > 0)) return std::nullopt;
  CommRatio r;
  r.ratio = e / p;
  r.repeated = engine.size() >= 2 && peer.size() >= 2;
  r.ci95 = ratio_confidence_interval(engine, peer);
  return r;
}

}  // namespace

std::optional<CommRatio> busbw_ratio(const CommPoint& engine, const CommPoint& peer) {
  return ratio_of_means(engine.busbw_gbps, peer.busbw_gbps);
}

std::optional<CommRatio> latency_ratio(const CommPoint& engine, const CommPoint& peer) {
  return ratio_of_means(engine.latency_us, peer.latency_us);
}

GoalMark goal_mark(const CommRatio& r, double goal) {
  if (r.ci95) {
    if (r.ci95->low >= goal) return GoalMark::Met;
    if (r.ci95->high < goal) return GoalMark::Missed;
    return GoalMark::Undecided;
  }
  if (r.repeated) return GoalMark::Undecided;
  return r.ratio >= goal ? GoalMark::Met : GoalMark::Missed;
}

GoalMark ceiling_mark(const CommRatio& r, double ceiling) {
  if (r.ci95) {
    if (r.ci95->high <= ceiling) return GoalMark::Met;
    if (r.ci95->low > ceiling) return GoalMark::Missed;
    return GoalMark::Undecided;
  }
  if (r.repeated) return GoalMark::Undecided;
  return r.ratio <= ceiling ? GoalMark::Met : GoalMark::Missed;
}

const char* goal_mark_text(GoalMark mark) {
  switch (mark) {
    case GoalMark::Met: return "✓";
    case GoalMark::Missed: return "✗";
    case GoalMark::Undecided: return "≈";
  }
  return "";
}

size_t CommGoalCheck::sizes_below_goal() const {
  if (!judged()) return 0;
  return size_t(std::count_if(ratios.begin(), ratios.end(),
                              [&](const CommRatio& r) { return goal_mark(r, *goal) == GoalMark::Missed; }));
}

size_t CommGoalCheck::sizes_undecided() const {
  if (!judged()) return 0;
  return size_t(std::count_if(ratios.begin(), ratios.end(),
                              [&](const CommRatio& r) { return goal_mark(r, *goal) == GoalMark::Undecided; }));
}

size_t CommGoalCheck::latency_sizes(GoalMark mark) const {
  if (!latency_judged()) return 0;
  return size_t(std::count_if(latency.begin(), latency.end(),
                              [&](const CommRatio& r) { return ceiling_mark(r, *latency_goal) == mark; }));
}

std::optional<GoalMark> CommGoalCheck::latency_verdict() const {
  if (!latency_judged()) return std::nullopt;
  if (latency_sizes(GoalMark::Missed) > 0) return GoalMark::Missed;
  if (latency_sizes(GoalMark::Undecided) > 0) return GoalMark::Undecided;
  return GoalMark::Met;
}

std::vector<double> CommGoalCheck::latency_ratios() const {
  std::vector<double> out;
  for (const auto& r : latency) out.push_back(r.ratio);
  return out;
}

double CommGoalCheck::lowest() const {
  double out = ratios.front().ratio;
  for (const auto& r : ratios) out = std::min(out, r.ratio);
  return out;
}

double CommGoalCheck::highest() const {
  double out = ratios.front().ratio;
  for (const auto& r : ratios) out = std::max(out, r.ratio);
  return out;
}

std::vector<std::pair<size_t, size_t>> engine_peer_pairs(const CommData& data) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t e = 0; e < data.studies.size(); ++e) {
    for (size_t p = 0; p < data.studies.size(); ++p) {
      if (data.studies[e].engine && !data.studies[p].engine) out.push_back({e, p});
    }
  }
  return out;
}

std::vector<CommGoalCheck> goal_checks(const CommData& data) {
  std::vector<CommGoalCheck> out;
  const auto pairs = engine_peer_pairs(data);
  for (const auto& [key, curve] : data.series) {
    for (const auto& [e, p] : pairs) {
      CommGoalCheck check;
      check.series = key;
      check.engine = e;
      check.peer = p;
      check.goal = peer_goal(data.studies[p].implementation);
      check.latency_goal = peer_latency_goal(data.studies[p].implementation);
      check.oversubscribed = data.oversubscribes(key.ranks);
      for (const auto& [bytes, points] : curve) {
        auto ours = points.find(e), theirs = points.find(p);
        if (ours == points.end() || theirs == points.end()) continue;
        if (bytes < kRatioMinBytes) {
          if (auto r = latency_ratio(ours->second, theirs->second)) check.latency.push_back(*r);
        } else if (auto r = busbw_ratio(ours->second, theirs->second)) {
          check.ratios.push_back(*r);
        }
      }
      if (!check.ratios.empty() || !check.latency.empty()) out.push_back(std::move(check));
    }
  }
  return out;
}

std::vector<CommCliff> find_cliffs(const CommData& data) {
  std::vector<CommCliff> cliffs;
  for (const auto& [key, curve] : data.series) {
    for (size_t s = 0; s < data.studies.size(); ++s) {
      std::optional<std::pair<double, double>> previous;  // bytes, mean busbw
      for (const auto& [bytes, points] : curve) {
        auto it = points.find(s);
        if (it == points.end() || it->second.busbw_gbps.empty()) continue;
        const double busbw = mean(it->second.busbw_gbps);
        if (previous && previous->second > 0 && busbw < (1 - kCliffDrop) * previous->second) {
          cliffs.push_back({key, s, bytes, previous->first, busbw, previous->second});
        }
        previous = {bytes, busbw};
      }
    }
  }
  return cliffs;
}

std::string ratio_text(double v) { return v >= 10 ? fixed(v, 0) : v >= 0.1 ? fixed(v, 2) : fmt::format("{:.2g}", v); }

std::string ratio_range_text(const std::vector<double>& ratios) {
  if (ratios.empty()) return "-";
  const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
  const std::string low = ratio_text(*lo), high = ratio_text(*hi);
  return low == high ? low + "×" : low + "–" + high + "×";
}

std::string size_text(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = bytes;
  size_t unit = 0;
  while (unit + 1 < std::size(units) && v >= 1024 && std::fmod(v, 1024) == 0) {
    v /= 1024;
    ++unit;
  }
  return fixed(v, 0) + " " + units[unit];
}

}  // namespace mt
