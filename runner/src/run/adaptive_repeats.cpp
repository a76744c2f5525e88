#include "run/adaptive_repeats.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <set>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "experiment/matrix.h"
#include "experiment/metric_catalogue.h"
#include "experiment/run_order.h"
#include "run/campaign_runner.h"
#include "stats.h"
#include "store/campaign_measurement.h"
#include "store/store.h"
#include "store/trial_json.h"

namespace mt {

RepeatStatus decide_rounds(const RepeatPolicy& policy, int rounds, const std::vector<double>& counted,
                           bool all_succeeded) {
  RepeatStatus s;
  s.rounds = rounds;
  s.counted = int(counted.size());
  if (auto ci = mean_confidence_interval(counted); ci && mean(counted) != 0) {
    s.ci_pct = (ci->high - ci->low) / 2 / std::fabs(mean(counted)) * 100.0;
  }
  if (s.ci_pct && policy.target_ci_pct && *s.ci_pct <= *policy.target_ci_pct) {
    s.decision = RoundDecision::Reached;
  } else if (rounds >= policy.max) {
    s.decision = RoundDecision::AtMax;
  } else if (!all_succeeded) {
    s.decision = RoundDecision::Blocked;
  } else {
    s.decision = RoundDecision::More;
  }
  return s;
}

std::string primary_metric(const Trial& trial) {
  if (trial.workload == "command" && !trial.metrics.empty()) return trial.metrics.front().name;
  if (trial.workload == "comm") return "busbw_gbps";
  return "tokens_per_sec";
}

std::map<std::string, RepeatPolicy> adaptive_studies(const Experiment& experiment) {
  std::map<std::string, RepeatPolicy> out;
  for (const auto& s : experiment.studies) {
    if (s.repeat_policy.adaptive()) out[s.name] = s.repeat_policy;
  }
  return out;
}

std::vector<std::string> adaptive_plan_lines(const std::map<std::string, RepeatPolicy>& policies,
                                             const TrialList& trials) {
  struct Study {
    std::set<std::string> configurations;
    std::string metric;
  };
  std::map<std::string, Study> studies;
  std::vector<std::string> order;  // of their first trials
  if (!policies.empty()) {
    for (const Trial& t : trials) {
      if (!policies.count(t.study)) continue;
      if (!studies.count(t.study)) order.push_back(t.study);
      Study& study = studies[t.study];
      study.configurations.insert(t.group_key);
      if (study.metric.empty()) {
        const auto known = known_metric(primary_metric(t));
        study.metric = known ? known->title : primary_metric(t);
      }
    }
  }
  std::vector<std::string> lines;
  for (const auto& name : order) {  // a study whose every trial was excluded has none
    const Study& study = studies.at(name);
    const RepeatPolicy& policy = policies.at(name);
    const std::size_t n = study.configurations.size();
    lines.push_back(fmt::format(
        "{} ({} configuration{}): after {} rounds, another round of a configuration while its {} 95 % CI is wider "
        "than ±{:g} % of its mean, up to {} rounds: at most {} more trials",
        name, n, n == 1 ? "" : "s", policy.min, study.metric, *policy.target_ci_pct, policy.max,
        n * std::size_t(policy.max - policy.min)));
  }
  return lines;
}

std::string repeat_policies_to_json(const std::map<std::string, RepeatPolicy>& policies) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [study, p] : policies) {
    j[study] = {{"min", p.min}, {"max", p.max}, {"target_ci_pct", p.target_ci_pct.value_or(0)}};
  }
  return j.dump();
}

std::map<std::string, RepeatPolicy> repeat_policies_from_json(const std::string& measurement_json) {
  std::map<std::string, RepeatPolicy> out;
  const auto j = nlohmann::json::parse(measurement_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("repeat") || !j["repeat"].is_object()) return out;
  for (const auto& [study, p] : j["repeat"].items()) {
    if (!p.is_object()) continue;
    RepeatPolicy policy{p.value("min", 1), p.value("max", 1), p.value("target_ci_pct", 0.0)};
    out[study] = policy;
  }
  return out;
}

namespace {

// The primary metric of a trial's latest attempt when it succeeded on a machine not judged disturbed.
struct RoundValue {
  bool succeeded = false;
  std::optional<double> counted;
};

RoundValue round_value(Database& db, std::int64_t trial_row, const std::string& metric) {
  const bool conditions = has_measurement_schema(db);
  const std::string value =
      metric == "busbw_gbps"
          ? "(SELECT avg(json_extract(r.data, '$.busbw_gbps')) FROM result_rows r WHERE r.attempt_id = a.id)"
          : "(SELECT m.value FROM metrics m WHERE m.attempt_id = a.id AND m.name = ?2)";
  auto s = db.prepare(fmt::format(
      "SELECT a.state, {}, {} FROM latest_attempts a WHERE a.trial_id = ?1",
      conditions ? "(SELECT c.verdict FROM attempt_conditions c WHERE c.attempt_id = a.id)" : "NULL", value));
  s.bind(1, trial_row);
  if (metric != "busbw_gbps") s.bind(2, metric);
  RoundValue v;
  if (!s.step()) return v;
  v.succeeded = s.text(0) == "succeeded";
  const bool disturbed = !s.is_null(1) && s.text(1) == "disturbed";
  if (v.succeeded && !disturbed && !s.is_null(2)) v.counted = s.real(2);
  return v;
}

}  // namespace

std::vector<ConfigurationRounds> adaptive_status(Database& db, const std::string& campaign_id,
                                                 const std::map<std::string, RepeatPolicy>& policies) {
  std::vector<ConfigurationRounds> out;
  if (policies.empty()) return out;
  std::map<std::string, std::size_t> index;  // group_key → position in out
  std::map<std::string, std::vector<std::int64_t>> rows;
  auto s = db.prepare(
      "SELECT id, group_key, study, repeat_index FROM trials WHERE campaign_id = ? "
      "ORDER BY ordinal");
  s.bind(1, campaign_id);
  while (s.step()) {
    const std::string study = s.text(2);
    if (!policies.count(study)) continue;
    const std::string key = s.text(1);
    auto [it, fresh] = index.try_emplace(key, out.size());
    if (fresh) out.push_back({key, study, "", "", 0, {}});
    if (s.integer(3) == 0) out[it->second].first_row = s.integer(0);
    rows[key].push_back(s.integer(0));
  }
  for (auto& c : out) {
    if (c.first_row == 0) c.first_row = rows[c.group_key].front();
    auto spec = db.prepare("SELECT spec FROM trials WHERE id = ?");
    spec.bind(1, c.first_row);
    spec.step();
    const Trial t = trial_from_json(spec.text(0));
    const std::string axes = t.axes_label();
    c.label = axes.empty() ? t.study : fmt::format("{} {}", t.study, axes);
    c.metric = primary_metric(t);
    std::vector<double> counted;
    bool all_succeeded = true;
    for (std::int64_t row : rows[c.group_key]) {
      RoundValue v = round_value(db, row, c.metric);
      all_succeeded = all_succeeded && v.succeeded;
      if (v.counted) counted.push_back(*v.counted);
    }
    c.status = decide_rounds(policies.at(c.study), int(rows[c.group_key].size()), counted, all_succeeded);
  }
  return out;
}

std::string adaptive_outcome(const std::vector<ConfigurationRounds>& configurations, const std::string& quote) {
  std::map<RoundDecision, std::vector<std::string>> by_decision;
  for (const auto& c : configurations) {
    const std::string ci = c.status.ci_pct         ? fmt::format("±{:.1f} %", *c.status.ci_pct)
                           : c.status.counted == 0 ? "no quiet attempt"
                                                   : "one quiet attempt: no interval";
    by_decision[c.status.decision].push_back(
        fmt::format("{}{}{} ({} rounds, {})", quote, c.label, quote, c.status.rounds, ci));
  }
  std::vector<std::string> parts;
  for (const auto& [decision, heading] :
       {std::pair{RoundDecision::Reached, "reached the target"}, std::pair{RoundDecision::AtMax, "stopped at max"},
        std::pair{RoundDecision::More, "not finished (run the experiment again)"},
        std::pair{RoundDecision::Blocked,
                  "held back by a round that has not succeeded: failed, interrupted or not run yet (run the "
                  "experiment again: it runs that round first)"}}) {
    if (auto it = by_decision.find(decision); it != by_decision.end())
      parts.push_back(fmt::format("{}: {}", heading, fmt::join(it->second, ", ")));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string adaptive_outcome_line(Database& db, const std::string& campaign_id,
                                  const std::map<std::string, RepeatPolicy>& policies) {
  if (policies.empty()) return "";
  const std::string outcome = adaptive_outcome(adaptive_status(db, campaign_id, policies), "");
  if (outcome.empty()) return "";
  return fmt::format(
      "adaptive repeats (95 % CI of the primary metric against its target, disturbed attempts not counted): {}.\n",
      outcome);
}

AddedRounds added_rounds_to_run(Database& db, const std::string& campaign_id, std::size_t planned, bool force,
                                const std::map<std::string, RepeatPolicy>& policies) {
  auto s = db.prepare(
      "SELECT t.id, (SELECT a.state FROM attempts a WHERE a.trial_id = t.id ORDER BY a.attempt DESC LIMIT 1), "
      "t.study, t.repeat_index FROM trials t WHERE t.campaign_id = ? AND t.ordinal >= ? ORDER BY t.ordinal");
  s.bind(1, campaign_id).bind(2, std::int64_t(planned));
  AddedRounds out;
  while (s.step()) {
    ++out.added;
    // The experiment's rules now, not those the rounds were added under: a study no longer adaptive,
    // or a round beyond a lowered max, is not run again (the file changed, the campaign did not).
    const auto policy = policies.find(s.text(2));
    if (policy == policies.end() || s.integer(3) >= policy->second.max) continue;
    const bool succeeded = !s.is_null(1) && s.text(1) == "succeeded";
    if (force || !succeeded) out.to_run.push_back(s.integer(0));
  }
  return out;
}

PendingTrials next_adaptive_round(Store& store, const std::string& campaign_id,
                                  const std::map<std::string, RepeatPolicy>& policies, std::ostream& out) {
  std::vector<Trial> round;
  for (const auto& c : adaptive_status(store.db(), campaign_id, policies)) {
    if (c.status.decision != RoundDecision::More) continue;
    fmt::print(out, "adaptive repeats: round {} of {} ({}: {}, target ±{} %)\n", c.status.rounds + 1, c.label, c.metric,
               c.status.ci_pct ? fmt::format("95 % CI ±{:.1f} %", *c.status.ci_pct)
                               : fmt::format("{} quiet value(s)", c.status.counted),
               policies.at(c.study).target_ci_pct.value_or(0));
    round.push_back(with_repeat(store.trial_spec(c.first_row), c.status.rounds));
  }
  // A shuffled campaign shuffles its added rounds too, each from the seed and its repeat index.
  const CampaignMeasurement how = read_campaign_measurement(store.db(), campaign_id);
  if (how.run_order == kOrderShuffled && how.seed && !round.empty()) {
    int repeat = 0;
    for (const auto& t : round) repeat = std::max(repeat, t.repeat_index);
    std::vector<Trial> shuffled;
    for (std::uint64_t k : shuffled_round(round.size(), *how.seed, repeat)) shuffled.push_back(round[k]);
    round = std::move(shuffled);
  }
  auto ordinal = store.db().prepare("SELECT coalesce(max(ordinal), -1) + 1 FROM trials WHERE campaign_id = ?");
  ordinal.bind(1, campaign_id);
  ordinal.step();
  int position = int(ordinal.integer(0));
  PendingTrials next;
  for (const auto& t : round) next.rows.push_back(store.add_trial_if_new(campaign_id, t, position++));
  auto trials = std::make_shared<std::vector<Trial>>(std::move(round));
  next.trial = [trials](std::size_t i) { return (*trials)[i]; };
  return next;
}

}  // namespace mt
