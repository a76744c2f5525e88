#include "report/sections/study_comparison.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "json_fields.h"
#include "report/model/machine_context.h"
#include "report/render/markdown_table.h"
#include "report/render/series_names.h"

namespace mt {
namespace {

// What a configuration is, apart from the study that ran it.
using ConfigurationKey = std::tuple<std::string, std::string, int, std::string>;

ConfigurationKey configuration(const Group& g) { return {g.kind, g.strategy, g.ranks, g.config}; }

// "mtengine (LibTorch 2.15.0)": a ratio against a peer names the version of each side.
std::string study_with_version(const Group& g) {
  if (auto torch = g.result_text("environment.torch"); !torch.empty())
    return fmt::format("{} (PyTorch {})", g.study, torch);
  if (auto libtorch = g.result_text("environment.libtorch"); !libtorch.empty())
    return fmt::format("{} (LibTorch {})", g.study, libtorch);
  return g.study;
}

// Where a trial's model started, as its result records it: `source` "" when it does not say, "its
// seed", or where the weights came from (the file's source, else its name) with the file's SHA-256.
struct InitialWeights {
  std::string source, sha;
};

InitialWeights initial_weights(const ReportTrial& t) {
  if (!t.result.is_object() || !t.result.contains("initial_weights")) return {};
  const nlohmann::json& w = t.result["initial_weights"];
  if (w.is_null()) return {"its seed", ""};
  if (!w.is_object()) return {};
  std::string from = text_field(w, "source");
  if (from.empty()) from = std::filesystem::path(text_field(w, "path")).filename().string();
  return {from.empty() ? "a weights file" : from, text_field(w, "sha256").substr(0, 12)};
}

// Where each compared study's models started, when any started from given weights: the sentence
// that says two studies computed one function (the same SHA-256 per configuration) or not.
std::string initial_weights_note(const std::vector<ContrastRow>& rows) {
  struct Sources {
    std::vector<std::string> order;                        // sources in order of appearance
    std::map<std::string, std::vector<std::string>> shas;  // source -> distinct file hashes
  };
  std::vector<std::string> studies;
  std::map<std::string, Sources> of;
  bool any_file = false;
  for (const auto& r : rows) {
    for (const Group* g : {r.a_group, r.b_group}) {
      if (std::find(studies.begin(), studies.end(), g->study) == studies.end()) studies.push_back(g->study);
      Sources& s = of[g->study];
      for (const ReportTrial* t : g->succeeded) {
        const auto [source, sha] = initial_weights(*t);
        if (source.empty()) continue;
        if (!s.shas.count(source)) s.order.push_back(source);
        auto& shas = s.shas[source];
        if (source == "its seed") continue;
        any_file = true;
        if (!sha.empty() && std::find(shas.begin(), shas.end(), sha) == shas.end()) shas.push_back(sha);
      }
    }
  }
  if (!any_file) return "";
  std::string out = "Initial weights, as each study's results record them (a file's SHA-256 per configuration):";
  for (const auto& study : studies) {
    const Sources& s = of[study];
    std::string joined;
    for (const auto& source : s.order) {
      std::string hashes;
      for (const auto& sha : s.shas.at(source)) hashes += (hashes.empty() ? "" : ", ") + code(sha);
      joined +=
          (joined.empty() ? "" : "; ") + std::string("from ") + source + (hashes.empty() ? "" : " (" + hashes + ")");
    }
    out += fmt::format(" {} {};", code(study), joined.empty() ? "not recorded" : joined);
  }
  out.back() = '.';
  return out + "\n\n";
}

}  // namespace

std::string study_pair_name(const Group& first, const Group& second, bool with_versions, const std::string* config) {
  std::string name = fmt::format("{} ÷ {}, {}×{}", with_versions ? study_with_version(first) : first.study,
                                 with_versions ? study_with_version(second) : second.study,
                                 first.strategy.empty() ? "" : first.strategy + " ", first.ranks);
  const std::string& axes = config ? *config : first.config;
  if (!axes.empty()) name += " " + axes;
  if (core_use(first).oversubscribed() || core_use(second).oversubscribed())
    name += std::string(" ") + kOversubscribedMark;
  return name;
}

std::vector<ContrastRow> study_contrasts(const std::vector<Group>& groups) {
  // Groups by configuration, in report order; studies in the order the experiment lists them.
  std::vector<ConfigurationKey> order;
  std::map<ConfigurationKey, std::vector<const Group*>> by_configuration;
  for (const auto& g : groups) {
    auto& list = by_configuration[configuration(g)];
    if (list.empty()) order.push_back(configuration(g));
    list.push_back(&g);
  }
  // Configurations named by the axes that tell them apart, not every axis of the study.
  const auto configs = distinct_configs(group_pointers(groups));
  std::vector<ContrastRow> rows;
  for (const auto& key : order) {
    const auto& list = by_configuration[key];
    for (std::size_t i = 0; i < list.size(); ++i) {
      for (std::size_t j = i + 1; j < list.size(); ++j) {
        const Group &first = *list[i], &second = *list[j];
        if (first.study == second.study) continue;
        for (const auto& m : key_metrics(first, second)) {
          auto a = first.sample(m.name).values, b = second.sample(m.name).values;
          if (a.empty() || b.empty()) continue;
          rows.push_back({study_pair_name(first, second, true, &configs.at(&first)), &first, &second, m, contrast(a, b),
                          std::nullopt, ""});
        }
      }
    }
  }
  return decide(std::move(rows));
}

namespace {

// "d_model=256 precision=fp32" -> {d_model: 256, precision: fp32}.
std::map<std::string, std::string> axis_values(const std::string& config) {
  std::map<std::string, std::string> out;
  std::size_t start = 0;
  while (start < config.size()) {
    std::size_t end = config.find(' ', start);
    if (end == std::string::npos) end = config.size();
    const std::string item = config.substr(start, end - start);
    const std::size_t eq = item.find('=');
    if (eq != std::string::npos) out[item.substr(0, eq)] = item.substr(eq + 1);
    start = end + 1;
  }
  return out;
}

// Whether `b` can stand in for `a`'s configuration: the same one, or the same at full precision
// (fp32) where `a` ran at a lower one; a user who accepts bf16's rounding also accepts fp32's, not
// the other way round.
bool can_stand_in(const Group& a, const Group& b, bool* other_precision) {
  if (a.kind != b.kind || a.strategy != b.strategy || a.ranks != b.ranks) return false;
  auto x = axis_values(a.config), y = axis_values(b.config);
  *other_precision = x["precision"] != y["precision"];
  if (*other_precision && y["precision"] != "fp32") return false;
  x.erase("precision");
  y.erase("precision");
  return x == y;
}

double mean_of(const std::vector<double>& v) { return summarize(v).mean; }

}  // namespace

std::vector<ContrastRow> best_alternative_contrasts(const std::vector<Group>& groups) {
  const Group* first_study = nullptr;
  for (const auto& g : groups) {
    if (g.kind == "train") {
      first_study = &g;
      break;
    }
  }
  if (!first_study) return {};
  const auto configs = distinct_configs(group_pointers(groups));
  std::vector<ContrastRow> rows;
  const KeyMetric metric = catalogue_metric("tokens_per_sec");
  for (const auto& g : groups) {
    if (g.kind != "train" || g.study != first_study->study) continue;
    const auto mine = g.sample(metric.name).values;
    if (mine.empty()) continue;
    const Group* best = nullptr;
    bool best_other_precision = false;
    int alternatives = 0;  // at this configuration's own precision: the pairs above show each
    for (const auto& h : groups) {
      bool other_precision = false;
      if (h.study == g.study || !can_stand_in(g, h, &other_precision)) continue;
      const auto theirs = h.sample(metric.name).values;
      if (theirs.empty()) continue;
      if (!other_precision) ++alternatives;
      if (!best || mean_of(theirs) > mean_of(best->sample(metric.name).values)) {
        best = &h;
        best_other_precision = other_precision;
      }
    }
    if (!best || (alternatives < 2 && !best_other_precision)) continue;
    std::string name = study_pair_name(g, *best, true, &configs.at(&g));
    if (best_other_precision)
      name += fmt::format(" (the alternative at precision={})", axis_values(best->config)["precision"]);
    rows.push_back({name, &g, best, metric, contrast(mine, best->sample(metric.name).values), std::nullopt, ""});
  }
  return decide(std::move(rows));
}

namespace {

std::string render_best_alternatives(const std::vector<ContrastRow>& rows) {
  if (rows.empty()) return "";
  return fmt::format(
      "### Against the fastest alternative\n\n"
      "Each configuration of `{}` against the fastest other study that ran it, or, for a lower precision, "
      "ran it in fp32 where that was faster: what a user of the alternative would pick. The fastest is chosen by "
      "its mean, which favours it a little. {}\n\n{}\n{}\n\n",
      rows.front().a_group->study, verdict_rules(tested_count(rows)),
      render_contrasts(rows, {"studies, configuration", "first mean ± std (n)", "fastest alternative mean ± std (n)",
                              "first ÷ fastest"}),
      kCellLegend);
}

}  // namespace

std::string render_study_comparison(const std::vector<ContrastRow>& all_rows, const std::vector<ContrastRow>& best) {
  // A metric that restates a tested one (step time for tokens/s) would double the table and say
  // nothing new: the training table has it.
  std::vector<ContrastRow> rows;
  std::set<std::string> restated;
  for (const auto& r : all_rows) {
    if (r.metric.role == MetricRole::SameMeasurement) {
      restated.insert(r.metric.name);
      continue;
    }
    rows.push_back(r);
  }
  if (rows.empty()) return "";
  std::string left_out;
  for (const auto& name : restated) left_out += (left_out.empty() ? "" : ", ") + code(name);
  if (!left_out.empty())
    left_out = " " + left_out +
               " restates a tested metric (the same measurement) and is left out here; the "
               "training table shows it.";
  return fmt::format(
             "## Studies compared\n\n"
             "Groups that differ only in their study (the same strategy, ranks and other parameters) ran one "
             "configuration through different implementations or set-ups. The first study is the one the "
             "experiment lists first; the verdict says how the first compares with the second. {}{}\n\n{}{}\n{}\n\n",
             verdict_rules(tested_count(rows)), left_out, initial_weights_note(rows),
             render_contrasts(
                 rows, {"studies, configuration", "first mean ± std (n)", "second mean ± std (n)", "first ÷ second"}),
             kCellLegend) +
         render_best_alternatives(best);
}

}  // namespace mt
