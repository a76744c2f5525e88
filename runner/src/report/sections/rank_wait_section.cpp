#include "report/sections/rank_wait_section.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/render/markdown_table.h"
#include "report/model/per_step.h"
#include "stats.h"

namespace mt {
namespace {

// The trial's measured steps (the last `steps` of each series; warmup first).
struct TrialWaits {
  std::vector<double> rank_mean_ms;  // per rank
  long long worst_step = 0;
  double worst_wait_ms = -1;
};

std::optional<TrialWaits> trial_waits(const ReportTrial& t) {
  auto measured = t.metric("steps");
  auto series = per_rank_series(t, "rank_wait_ms");
  if (!measured || *measured < 1 || series.size() < 2) return std::nullopt;
  const auto n = static_cast<size_t>(*measured);
  TrialWaits out;
  for (const auto& rank : series) {
    if (rank.size() < n) return std::nullopt;
    const size_t skip = rank.size() - n;
    std::vector<double> window(rank.begin() + static_cast<std::ptrdiff_t>(skip), rank.end());
    out.rank_mean_ms.push_back(mean(window));
    for (size_t i = 0; i < n; ++i) {
      if (window[i] > out.worst_wait_ms) {
        out.worst_wait_ms = window[i];
        out.worst_step = first_step_of(t) + static_cast<long long>(skip + i);
      }
    }
  }
  return out;
}

std::optional<RankWaitRow> rank_wait_row(const Group& g) {
  RankWaitRow row;
  row.group = &g;
  std::vector<double> most_waiting;
  int trials = 0;
  for (const ReportTrial* t : g.succeeded) {
    auto waits = trial_waits(*t);
    if (!waits) continue;
    if (row.rank_wait_ms.empty()) row.rank_wait_ms.assign(waits->rank_mean_ms.size(), 0.0);
    if (row.rank_wait_ms.size() != waits->rank_mean_ms.size()) continue;
    for (size_t r = 0; r < row.rank_wait_ms.size(); ++r) row.rank_wait_ms[r] += waits->rank_mean_ms[r];
    most_waiting.push_back(*std::max_element(waits->rank_mean_ms.begin(), waits->rank_mean_ms.end()));
    if (waits->worst_wait_ms > row.worst_wait_ms) {
      row.worst_wait_ms = waits->worst_wait_ms;
      row.worst_step = waits->worst_step;
    }
    ++trials;
  }
  if (trials == 0) return std::nullopt;
  for (double& w : row.rank_wait_ms) w /= trials;
  row.wait_ms = mean(most_waiting);
  row.step_ms = mean(g.sample("step_time_ms").values);
  row.slowest_rank = int(std::min_element(row.rank_wait_ms.begin(), row.rank_wait_ms.end()) - row.rank_wait_ms.begin());
  return row;
}

std::string per_rank_cell(const std::vector<double>& waits) {
  std::string out;
  for (size_t r = 0; r < waits.size(); ++r) out += fmt::format("{}{}: {}", r ? ", " : "", r, fixed(waits[r], 2));
  return out;
}

}  // namespace

std::vector<RankWaitRow> straggler_rows(const std::vector<const Group*>& training) {
  std::vector<RankWaitRow> rows;
  for (const Group* g : training) {
    if (g->ranks < 2) continue;
    if (auto row = rank_wait_row(*g); row && row->share() >= kStragglerShare) rows.push_back(std::move(*row));
  }
  return rows;
}

std::string render_rank_wait_section(const std::vector<RankWaitRow>& rows) {
  if (rows.empty()) return "";
  MarkdownTable table({{"strategy"},
                       {"ranks", Align::Right},
                       {"configuration"},
                       {"step ms", Align::Right},
                       {"wait ms", Align::Right},
                       {"share of step", Align::Right},
                       {"wait ms by rank"},
                       {"slowest rank", Align::Right},
                       {"longest wait"}});
  for (const auto& r : rows) {
    table.add_row({r.group->strategy, std::to_string(r.group->ranks), r.group->label(), fixed(r.step_ms, 2),
                   fixed(r.wait_ms, 2), percent(r.share()), per_rank_cell(r.rank_wait_ms),
                   std::to_string(r.slowest_rank),
                   fmt::format("{} ms at step {}", fixed(r.worst_wait_ms, 1), r.worst_step)});
  }
  return fmt::format(
      "## Waiting for the slowest rank\n\n{}\nEach step starts with every rank together, so a rank that arrives late "
      "(a straggler: a slower core, a neighbour's load, an injected sleep) makes the others wait. `wait ms` is the "
      "most-waiting rank's mean wait per measured step, already part of `step ms`; the slowest rank is the one that "
      "waited least. Configurations whose ranks waited less than {} of the step are not listed.\n\n",
      table.render(), percent(kStragglerShare, 0));
}

std::vector<std::string> straggler_warnings(const std::vector<RankWaitRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) {
    out.push_back(
        fmt::format("{} at {} ranks{}: ranks waited {} of each step for rank {} (longest: {} ms at step {}); see "
                    "[Waiting for the slowest rank](#waiting-for-the-slowest-rank).",
                    r.group->strategy, r.group->ranks, r.group->config.empty() ? "" : " (" + r.group->config + ")",
                    percent(r.share()), r.slowest_rank, fixed(r.worst_wait_ms, 1), r.worst_step));
  }
  return out;
}

}  // namespace mt
