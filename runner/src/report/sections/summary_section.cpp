#include "report/sections/summary_section.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/model/campaign_drift.h"
#include "report/model/contrast.h"
#include "report/render/cells.h"
#include "report/sections/comm_summary.h"
#include "report/sections/failures_section.h"
#include "report/model/machine_context.h"
#include "report/render/markdown_table.h"
#include "report/model/measurement_window.h"
#include "report/render/series_names.h"
#include "report/sections/training_tables.h"

namespace mt {
namespace {

// Repeats below this give rough spreads and weak tests (docs/measurement.md).
constexpr size_t kMinRepeats = 5;

std::string plural(size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

std::string range_text(const std::set<int>& values) {
  if (values.empty()) return "";
  if (values.size() == 1) return std::to_string(*values.begin());
  return fmt::format("{}–{}", *values.begin(), *values.rbegin());
}

std::string percent_range(std::vector<double> values) {
  if (values.empty()) return "";
  std::sort(values.begin(), values.end());
  if (percent(values.front()) == percent(values.back())) return percent(values.front());
  return fixed(100 * values.front(), 1) + "–" + percent(values.back());
}

// "ddp (mtengine d_model=256 precision=fp32)": the strategy, and what tells the group from the others.
std::string who(const Group& g, const std::map<const Group*, std::string>& names) {
  return fmt::format("{} ({})", g.strategy, names.at(&g));
}

std::string headline(const ContrastRow& r, int tested) {
  const auto& c = r.contrast;
  std::string p = r.adjusted_p
                      ? fmt::format("p (Holm, {}) {}", plural(size_t(tested), "test"), p_relation(*r.adjusted_p))
                      : "no test";
  return fmt::format("- {}: {} {}× ({} vs {}), {}, n = {} + {} — **{}**.\n", r.pair, r.metric.name,
                     c.ratio ? fixed(*c.ratio, 3) : "-", auto_number(c.a.mean), auto_number(c.b.mean), p, c.a.n, c.b.n,
                     r.verdict);
}

std::string headlines(const std::vector<ContrastRow>& rows) {
  std::string out;
  int tested = tested_count(rows);
  for (const auto& r : rows) {
    if (r.metric.role == MetricRole::Tested) out += headline(r, tested);
  }
  return out.empty()
             ? ""
             : "**Studies compared** (first ÷ second; details under [Studies compared](#studies-compared)):\n\n" + out +
                   "\n";
}

// Per rank count: the fastest configuration against the runner-up (tested together over rank
// counts) and the one holding the least model state.
std::string best_configurations(const std::vector<TrainingRow>& rows) {
  std::map<int, std::vector<const TrainingRow*>> by_ranks;
  for (const auto& r : rows) {
    if (r.tokens_per_sec.n) by_ranks[r.group->ranks].push_back(&r);
  }
  if (by_ranks.empty()) return "";
  std::vector<const Group*> groups;
  for (const auto& r : rows) groups.push_back(r.group);
  const auto names = distinct_names(groups, false, false);
  std::vector<ContrastRow> contests;
  std::map<int, size_t> contest_of;
  for (auto& [ranks, list] : by_ranks) {
    std::stable_sort(list.begin(), list.end(), [](const TrainingRow* a, const TrainingRow* b) {
      return a->tokens_per_sec.mean > b->tokens_per_sec.mean;
    });
    if (list.size() < 2) continue;
    const Group &first = *list[0]->group, &second = *list[1]->group;
    contest_of[ranks] = contests.size();
    contests.push_back({"", &first, &second, catalogue_metric("tokens_per_sec"),
                        contrast(first.sample("tokens_per_sec").values, second.sample("tokens_per_sec").values),
                        std::nullopt, ""});
  }
  contests = decide(std::move(contests));
  MarkdownTable table({{"ranks", Align::Right},
                       {"fastest: tokens/s"},
                       {"runner-up: tokens/s"},
                       {"fastest ÷ runner-up", Align::Right},
                       {"p (Holm)", Align::Right},
                       {"verdict"},
                       {"least model state: MiB"}});
  for (const auto& [ranks, list] : by_ranks) {
    const TrainingRow& best = *list[0];
    std::string ranks_text = std::to_string(ranks);
    bool oversubscribed =
        std::any_of(list.begin(), list.end(), [](const TrainingRow* r) { return r->cores.oversubscribed(); });
    if (oversubscribed) ranks_text += std::string(" ") + kOversubscribedMark;
    std::vector<std::string> row = {ranks_text, who(*best.group, names) + ": " + mean_std_cell(best.tokens_per_sec, 0)};
    if (auto it = contest_of.find(ranks); it != contest_of.end()) {
      const ContrastRow& c = contests[it->second];
      row.push_back(who(*list[1]->group, names) + ": " + mean_std_cell(list[1]->tokens_per_sec, 0));
      row.push_back(c.contrast.ratio ? fixed(*c.contrast.ratio, 3) : "-");
      row.push_back(c.adjusted_p ? p_text(*c.adjusted_p) : "-");
      row.push_back(c.verdict);
    } else {
      row.insert(row.end(), {"-", "-", "-", "only one configuration"});
    }
    const TrainingRow* leanest = nullptr;
    for (const TrainingRow* r : list) {
      if (r->model_state_mib.n && (!leanest || r->model_state_mib.mean < leanest->model_state_mib.mean)) leanest = r;
    }
    row.push_back(leanest ? who(*leanest->group, names) + ": " + fixed(leanest->model_state_mib.mean, 1)
                          : kNotRecorded);
    table.add_row(std::move(row));
  }
  const int tested = tested_count(contests);
  std::string test = tested == 0   ? ""
                     : tested == 1 ? " (Welch test)"
                                   : fmt::format(" (Welch test; p (Holm) over the {} tests made together)", tested);
  return fmt::format(
      "**Best configuration per rank count**: the highest mean tokens/s against the runner-up{}, and the least "
      "model state one rank holds.\n\n{}\n",
      test, table.render());
}

std::string measurement_line(const std::vector<const Group*>& training) {
  std::set<int> repeats, steps;
  std::vector<double> cvs, errors;
  for (const Group* g : training) {
    repeats.insert(int(g->succeeded.size()));
    MeasurementWindow w = measurement_window(*g);
    if (w.measured_steps) steps.insert(*w.measured_steps);
    if (w.step_cv) cvs.push_back(*w.step_cv);
    if (auto e = w.mean_relative_error()) errors.push_back(*e);
  }
  std::string out = fmt::format("**Measurement**: n = {} successful repeats per configuration", range_text(repeats));
  out +=
      steps.empty() ? "; measured steps not recorded" : fmt::format("; {} measured steps per trial", range_text(steps));
  if (!cvs.empty()) {
    out += fmt::format("; per-step CV {} within a trial, so a trial's mean is known to about ± {}", percent_range(cvs),
                       percent_range(errors));
  }
  return out + " (see [Measurement conditions](#measurement-conditions)).\n\n";
}

// Environment fields that decide CPU numbers, by how they are named to a reader.
const std::vector<std::pair<const char*, const char*>>& context_fields() {
  static const std::vector<std::pair<const char*, const char*>> fields = {
      {"cpu_cores", "logical CPUs"},       {"memory_mib", "memory"},
      {"blas_vendor", "BLAS vendor"},      {"blas_core", "BLAS core"},
      {"flush_denormal", "flush-to-zero"}, {"env_vars", "environment values"}};
  return fields;
}

// The configurations whose step time still moved one way over the window (measurement_window.h);
// `windows` are the rows' own.
std::vector<std::string> drift_warnings(const std::vector<TrainingRow>& rows,
                                        const std::vector<MeasurementWindow>& windows) {
  std::vector<std::string> warming, slowing;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& drift = windows[i].drift;
    if (!drift || !drift->marked()) continue;
    (drift->warming() ? warming : slowing)
        .push_back(fmt::format("{}: {}", rows[i].group->name(), drift_description(*drift)));
  }
  std::vector<std::string> out;
  if (!warming.empty()) {
    out.push_back(
        fmt::format("{}: {} of {} configurations still got faster over their measured steps ({}): their "
                    "means hold some warm-up; more `warmup_steps` leave it out.",
                    kWarmingMark, warming.size(), rows.size(), fmt::join(warming, "; ")));
  }
  if (!slowing.empty()) {
    out.push_back(
        fmt::format("{}: {} of {} configurations got slower over their measured steps ({}): something "
                    "grew over the run (memory, caches, heat, a neighbour), so their means depend on how "
                    "many steps were measured.",
                    kSlowingMark, slowing.size(), rows.size(), fmt::join(slowing, "; ")));
  }
  return out;
}

// The campaigns whose every configuration drifted as they ran (campaign_drift.h).
std::vector<std::string> campaign_drift_warnings(const std::vector<TrainingRow>& rows) {
  std::vector<const Group*> training;
  for (const auto& r : rows) training.push_back(r.group);
  const auto drifts = campaign_drifts(training);
  std::vector<std::string> out;
  for (const auto& d : drifts) {
    if (!d.marked()) continue;
    out.push_back(fmt::format(
        "{}: {}: something every configuration shared got {} as the campaign went on; ratios between interleaved "
        "configurations hold, absolute figures depend on when they ran (see [Measurement "
        "conditions](#measurement-conditions)).",
        kCampaignDriftMark, campaign_drift_text(d, drifts.size() > 1), d.change > 0 ? "slower" : "faster"));
  }
  return out;
}

std::vector<std::string> warnings(const SummaryInputs& in, const std::vector<TrainingRow>& rows) {
  std::vector<std::string> out;
  size_t oversubscribed = 0, same_cores = 0, few = 0, short_windows = 0;
  std::set<int> over_ranks, few_n, short_steps;
  std::set<int> cores;
  std::vector<MeasurementWindow> windows;  // each row's once: it reads every trial's per-step series
  for (const auto& r : rows) {
    if (r.cores.oversubscribed()) {
      ++oversubscribed;
      over_ranks.insert(r.group->ranks);
      if (r.cores.cores) cores.insert(*r.cores.cores);
    }
    if (r.scaling_basis == ScalingBasis::SameCores) ++same_cores;
    if (r.group->succeeded.size() < kMinRepeats) {
      ++few;
      few_n.insert(int(r.group->succeeded.size()));
    }
    const MeasurementWindow& w = windows.emplace_back(measurement_window(*r.group));
    if (w.short_window()) {
      ++short_windows;
      short_steps.insert(*w.measured_steps);
    }
  }
  if (oversubscribed) {
    std::string where;
    for (int r : over_ranks) where += (where.empty() ? "" : ", ") + std::to_string(r);
    out.push_back(fmt::format(
        "{}: {} ran more ranks × threads than {} ({} ranks): the ranks took turns on the cores, so their "
        "throughput measures the machine and their scaling efficiency is withheld.",
        kOversubscribedMark, plural(oversubscribed, "configuration"),
        cores.empty() ? std::string("the node has cores") : fmt::format("the node's {} cores", range_text(cores)),
        where));
  }
  if (same_cores) {
    out.push_back(
        fmt::format("{}: {} ran on no more cores than {} 1-rank baseline: ideal scaling there is 1×, so the scaling "
                    "efficiency says how splitting the same cores into ranks pays, not how the strategy scales.",
                    kSameCoresMark, plural(same_cores, "multi-rank configuration"), same_cores == 1 ? "its" : "their"));
  }
  if (few) {
    out.push_back(
        fmt::format("{} of {} configurations have fewer than {} successful repeats (n = {}): spreads, "
                    "confidence intervals and p-values are rough.",
                    few, rows.size(), kMinRepeats, range_text(few_n)));
  }
  if (short_windows) {
    out.push_back(
        fmt::format("{}: {} of {} configurations measured fewer than {} steps per trial ({}): a mean over "
                    "a handful of steps moves with every hiccup.",
                    kShortWindowMark, short_windows, rows.size(), kMinMeasuredSteps, range_text(short_steps)));
  }
  for (auto& warning : drift_warnings(rows, windows)) out.push_back(std::move(warning));
  for (auto& warning : campaign_drift_warnings(rows)) out.push_back(std::move(warning));
  std::string missing;
  size_t included = 0;
  std::map<std::string, size_t> absent;
  for (const auto& t : *in.trials) {
    if (!t.succeeded() || trial_kind(t) != "train") continue;
    ++included;
    nlohmann::json env = trial_environment(t);
    for (const auto& [key, name] : context_fields()) absent[key] += env.contains(key) ? 0 : 1;
  }
  for (const auto& [key, name] : context_fields()) {
    if (absent[key])
      missing += fmt::format("{}{}{}", missing.empty() ? "" : ", ", name,
                             absent[key] == included ? "" : fmt::format(" ({} of {} trials)", absent[key], included));
  }
  if (!missing.empty()) {
    out.push_back("Not recorded by the programs that ran: " + missing +
                  ". The numbers cannot be checked against them (see [Environment and "
                  "provenance](#environment-and-provenance)).");
  }
  return out;
}

// The workload benchmarks' own sections mark an oversubscribed row; the summary says it once, since
// their timings (not their correctness checks) then measure ranks taking turns on the cores.
std::optional<std::string> workload_oversubscription(const std::vector<const Group*>& groups) {
  std::vector<std::string> names;
  std::set<int> cores;
  for (const Group* g : groups) {
    const CoreUse use = core_use(*g);
    if (!use.oversubscribed()) continue;
    names.push_back(fmt::format("{} ×{}", g->label(), g->ranks));
    if (use.cores) cores.insert(*use.cores);
  }
  if (names.empty()) return std::nullopt;
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) list += (i ? ", " : "") + names[i];
  return fmt::format(
      "{}: {} of the MoE, tensor-parallel and process-group benchmarks ran more ranks × threads than {} ({}): "
      "their correctness checks hold, but their times include ranks waiting for a core.",
      kOversubscribedMark, plural(names.size(), "configuration"),
      cores.empty() ? std::string("the node has cores") : fmt::format("the node's {} cores", range_text(cores)), list);
}

std::vector<std::string> general_warnings(const SummaryInputs& in) {
  std::vector<std::string> out;
  const ProvenanceAnalysis& p = *in.provenance;
  if (!p.incomplete.empty()) {
    out.push_back(
        fmt::format("Incomplete provenance in {} of {} trials (listed below).", p.incomplete.size(), p.included));
  }
  if (p.mixed()) out.push_back("Results from different builds are shown together (`--allow-mixed`).");
  for (const auto& w : in.measurement_warnings) out.push_back(w);
  size_t failed = 0, running = 0;
  for (const auto& t : *in.trials) {
    running += still_running(t) ? 1 : 0;
    failed += t.succeeded() || still_running(t) ? 0 : 1;
  }
  if (failed) out.push_back(fmt::format("{} did not succeed (see [Failures](#failures)).", plural(failed, "trial")));
  if (running) out.push_back(fmt::format("{} still running, not yet in the figures below.", plural(running, "trial")));
  return out;
}

}  // namespace

std::string render_summary(const SummaryInputs& in) {
  std::string out = "## Summary\n\n" + headlines(in.study_contrasts);
  std::vector<TrainingRow> rows = in.training.empty() ? std::vector<TrainingRow>{} : training_rows(in.training);
  std::vector<std::string> all;
  if (!rows.empty()) {
    out += best_configurations(rows);
    out += measurement_line(in.training);
    all = warnings(in, rows);
  }
  if (!in.comm_rows.empty()) {
    CommSummary comm = summarize_comm_rows(in.comm_rows);
    out += comm.headline;
    for (auto& w : comm.warnings) all.push_back(std::move(w));
  }
  if (auto w = workload_oversubscription(in.workloads)) all.push_back(std::move(*w));
  for (auto& w : general_warnings(in)) all.push_back(std::move(w));
  out += "**Warnings**";
  if (all.empty()) return out + ": none.\n\n";
  out += ":\n\n";
  for (const auto& w : all) out += "- " + w + "\n";
  return out + "\n";
}

}  // namespace mt
