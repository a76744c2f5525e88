#include "report/sections/comm_summary.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/model/comm_rows.h"
#include "report/render/markdown_table.h"

namespace mt {
namespace {

// Repeats below this give rough spreads (docs/measurement.md), as for training.
constexpr size_t kFewRepeats = 5;

std::string ranks_list(const std::set<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

// Curves of one rank count by verdict: a curve misses its goal when some size lies clearly below it,
// and is undecided when none does but some size's interval straddles it.
struct CurveVerdicts {
  int met = 0, missed = 0, undecided = 0;
  int judged() const { return met + missed + undecided; }
  void add(const CurveVerdicts& o) {
    met += o.met;
    missed += o.missed;
    undecided += o.undecided;
  }
};

struct PairTally {
  std::map<int, std::vector<double>> busbw_ratios;    // from kRatioMinBytes, by rank count
  std::map<int, CurveVerdicts> per_ranks;             // busbw: curves with a goal, by rank count
  std::map<int, CurveVerdicts> latency_per_ranks;     // latency: the same below kRatioMinBytes
  std::map<int, std::vector<double>> latency_ratios;  // below kRatioMinBytes, by rank count
};

// A pair's ratios as `range` writes them: over the rank counts that did not oversubscribe the cores,
// and apart, "4, 8 ranks ⚠oversubscribed: 0.84–4.12": a range over both would mix in ratios that
// measure the scheduler. Either is empty where no rank count is of its kind.
struct RatioRanges {
  std::string judged, oversubscribed;
};

template <typename Range>
RatioRanges ratio_ranges(const CommData& data, const std::map<int, std::vector<double>>& by_ranks, Range&& range) {
  std::vector<double> judged, shared;
  std::set<int> shared_ranks;
  for (const auto& [ranks, ratios] : by_ranks) {
    std::vector<double>& into = data.oversubscribes(ranks) ? shared : judged;
    into.insert(into.end(), ratios.begin(), ratios.end());
    if (data.oversubscribes(ranks)) shared_ranks.insert(ranks);
  }
  RatioRanges out;
  if (!judged.empty()) out.judged = range(judged);
  if (!shared.empty())
    out.oversubscribed = fmt::format("{} ranks {}: {}", ranks_list(shared_ranks), kOversubscribedMark, range(shared));
  return out;
}

// "1.40–5.50 (4, 8 ranks ⚠oversubscribed: 0.84–4.12)", or either part alone; the oversubscribed part
// alone says that no rank count was judged.
std::string ranges_text(const RatioRanges& r) {
  if (r.oversubscribed.empty()) return r.judged;
  if (r.judged.empty()) return "measured on oversubscribed rank counts only (" + r.oversubscribed + ")";
  return r.judged + " (" + r.oversubscribed + ")";
}

std::string busbw_range(const std::vector<double>& ratios) {
  const auto [lowest, highest] = std::minmax_element(ratios.begin(), ratios.end());
  return fixed(*lowest, 2) + "–" + fixed(*highest, 2);
}

void count(CurveVerdicts& verdicts, GoalMark mark) {
  switch (mark) {
    case GoalMark::Met: ++verdicts.met; break;
    case GoalMark::Missed: ++verdicts.missed; break;
    case GoalMark::Undecided: ++verdicts.undecided; break;
  }
}

std::string verdicts_text(const CurveVerdicts& v) {
  return fmt::format("met {}, missed {}, undecided {}", v.met, v.missed, v.undecided);
}

// "goal ≥ 0.95× met on 5 of 8 curves, missed on 0, undecided on 3 (2 ranks: met 5, …; 4 ranks
// ⚠oversubscribed: not judged)" over the curves of each rank count.
std::string goal_verdicts_text(const CommData& data, const std::string& goal,
                               const std::map<int, CurveVerdicts>& per_ranks) {
  CurveVerdicts all;
  std::string by_ranks;
  std::set<int> shared_ranks;
  for (const auto& [ranks, verdicts] : per_ranks) {
    if (data.oversubscribes(ranks)) {
      shared_ranks.insert(ranks);
      continue;
    }
    all.add(verdicts);
    by_ranks += fmt::format("{}{} ranks: {}", by_ranks.empty() ? "" : "; ", ranks, verdicts_text(verdicts));
  }
  if (!shared_ranks.empty()) {
    by_ranks += fmt::format("{}{} ranks {}: not judged", by_ranks.empty() ? "" : "; ", ranks_list(shared_ranks),
                            kOversubscribedMark);
  }
  if (all.judged() == 0) {
    return shared_ranks.empty()
               ? fmt::format("goal {} not judged", goal)
               : fmt::format("goal {} not judged ({} ranks {})", goal, ranks_list(shared_ranks), kOversubscribedMark);
  }
  return fmt::format("goal {} met on {} of {} curves, missed on {}, undecided on {} ({})", goal, all.met, all.judged(),
                     all.missed, all.undecided, by_ranks);
}

std::string pair_text(const CommData& data, size_t engine, size_t peer, const PairTally& t) {
  const CommStudy& p = data.studies[peer];
  const auto goal = peer_goal(p.implementation);
  const auto latency_goal = peer_latency_goal(p.implementation);
  const std::string who = fmt::format("{} ÷ {}{}", code(data.studies[engine].label), code(p.label),
                                      p.version.empty() ? "" : " (" + p.version + ")");
  std::string latency;
  if (!t.latency_ratios.empty()) {
    const RatioRanges ranges = ratio_ranges(data, t.latency_ratios, ratio_range_text);
    if (ranges.judged.empty()) {
      latency = fmt::format("; below {}, the engine's latency ÷ the peer's was {}", size_text(kRatioMinBytes),
                            ranges_text(ranges));
    } else {
      latency =
          fmt::format("; below {}, the engine's latency is {} the peer's", size_text(kRatioMinBytes), ranges.judged);
      if (!ranges.oversubscribed.empty()) latency += " (" + ranges.oversubscribed + ")";
    }
    if (latency_goal && !t.latency_per_ranks.empty()) {
      latency += ", " + goal_verdicts_text(data, "≤ " + fixed(*latency_goal, 2) + "×", t.latency_per_ranks);
    }
  }
  if (t.busbw_ratios.empty()) return fmt::format("{}: {}", who, latency.substr(2));  // only sizes below
  const std::string busbw = ranges_text(ratio_ranges(data, t.busbw_ratios, busbw_range));
  if (!goal) return fmt::format("{}: busbw ratio {} (no goal){}", who, busbw, latency);
  return fmt::format("{}: busbw ratio {}, {}{}", who, busbw,
                     goal_verdicts_text(data, "≥ " + fixed(*goal, 2) + "×", t.per_ranks), latency);
}

}  // namespace

CommSummary summarize_comm_rows(const std::vector<const Group*>& groups) {
  CommSummary out;
  const CommData data = collect_comm_rows(groups);
  std::map<std::pair<size_t, size_t>, PairTally> tallies;
  for (const auto& c : goal_checks(data)) {
    PairTally& t = tallies[{c.engine, c.peer}];
    for (const auto& r : c.ratios) t.busbw_ratios[c.series.ranks].push_back(r.ratio);
    // Oversubscribed rank counts are counted here and set aside in the text.
    if (c.goal && !c.ratios.empty()) {
      count(t.per_ranks[c.series.ranks], c.sizes_below_goal() > 0  ? GoalMark::Missed
                                         : c.sizes_undecided() > 0 ? GoalMark::Undecided
                                                                   : GoalMark::Met);
    }
    if (c.latency_goal && !c.latency.empty()) {
      // latency_verdict() is nullopt on oversubscribed curves; they are set aside all the same.
      count(t.latency_per_ranks[c.series.ranks], c.latency_verdict().value_or(GoalMark::Undecided));
    }
    for (const auto& r : c.latency) t.latency_ratios[c.series.ranks].push_back(r.ratio);
  }
  if (!tallies.empty()) {
    std::string pairs;
    for (const auto& [pair, tally] : tallies) {
      pairs += "- " + pair_text(data, pair.first, pair.second, tally) + ".\n";
    }
    const size_t cliffs = find_cliffs(data).size();
    out.headline = fmt::format(
        "**Collectives** (see [Communication](#communication)): the engine against its peers, busbw at every "
        "message size from {} and latency below it, a curve being one operation, variant and rank count; a goal is "
        "met on a curve when the ratio's whole 95 % confidence interval clears it at every such size (busbw at or "
        "above it, latency at or below it), missed when the whole interval lies on the wrong side of it at some "
        "size, and undecided otherwise (the interval straddles it: more repeats would narrow it), and only rank "
        "counts that did not oversubscribe the cores are judged. {} in all curves (busbw more than {} below the "
        "next smaller size).\n\n{}\n",
        size_text(kRatioMinBytes), cliffs == 1 ? std::string("1 cliff") : fmt::format("{} cliffs", cliffs),
        percent(kCliffDrop, 0), pairs);
  }
  std::set<int> shared;
  for (const auto& [ranks, oversubscribed] : data.oversubscribed) {
    if (oversubscribed) shared.insert(ranks);
  }
  if (!shared.empty()) {
    out.warnings.push_back(fmt::format(
        "{}: collectives at {} ranks ran more ranks × threads than the node has cores: the ranks took turns on "
        "the cores, so those rows measure the machine as much as the communication library.",
        kOversubscribedMark, ranks_list(shared)));
  }
  std::set<int> few;
  for (const Group* g : groups) {
    if (g->succeeded.size() < kFewRepeats) few.insert(int(g->succeeded.size()));
  }
  if (!few.empty()) {
    out.warnings.push_back(
        fmt::format("Collective measurements with fewer than {} successful repeats (n = {}): "
                    "spreads and ratio uncertainties are rough.",
                    kFewRepeats, ranks_list(few)));
  }
  return out;
}

}  // namespace mt
