#include "report/sections/training_tables.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/sections/detail_table.h"
#include "report/render/markdown_table.h"
#include "report/model/model_state.h"
#include "report/render/series_names.h"

namespace mt {
namespace {

// Strategies in the order they first appear (campaign, then plan order: the order the experiment
// lists them), so the engine's strategy table is the only list of strategy names.
std::map<std::string, std::size_t> strategy_order(const std::vector<const Group*>& groups) {
  std::map<std::string, std::size_t> order;
  for (const Group* g : groups) order.emplace(g->strategy, order.size());
  return order;
}

// Parameters that decide what is being compared, as canonical text. Strategy and ranks are what the
// comparisons vary; the gradient sync mode has nothing to synchronise at one rank and resolves
// differently per strategy, so it is matched separately.
std::string comparable_key(const Group& g) {
  nlohmann::ordered_json params = g.first().parameters;
  for (const char* name : {"strategy", "ranks", "gradient_sync_mode"}) params.erase(name);
  return g.workload + "\n" + params.dump();
}

std::string sync_mode(const Group& g) { return g.first().param("gradient_sync_mode", "auto"); }
std::string resolved_sync_mode(const Group& g) { return g.result_text("resolved_gradient_sync_mode"); }

std::vector<MetricSpec> training_metrics() {
  return catalogue_specs({"tokens_per_sec", "step_time_ms", "data_time_ms", "forward_backward_ms", "optimizer_step_ms",
                          "peak_memory_mb", "loss"});
}

std::string precision(const Group& g) {
  std::string text = g.result_text("precision");
  return text.empty() ? g.first().param("precision", "-") : text;
}

// Result fields under "resume" and "checkpoint" that any group carries, as dotted paths.
std::vector<std::string> resume_checkpoint_fields(const std::vector<const Group*>& groups) {
  std::set<std::string> fields;
  for (const Group* g : groups) {
    for (const ReportTrial* t : g->succeeded) {
      if (!t->result.is_object()) continue;
      for (const char* top : {"checkpoint", "resume"}) {
        if (!t->result.contains(top)) continue;
        const auto& v = t->result[top];
        if (!v.is_object()) {
          fields.insert(top);
          continue;
        }
        for (const auto& [key, value] : v.items()) {
          if (!value.is_object() && !value.is_array()) fields.insert(std::string(top) + "." + key);
        }
      }
    }
  }
  return {fields.begin(), fields.end()};
}

}  // namespace

const Group* comparable_group(const std::vector<const Group*>& groups, const Group& like, const std::string& strategy,
                              int ranks) {
  std::string key = comparable_key(like);
  std::vector<const Group*> candidates, same_study;
  for (const Group* g : groups) {
    if (g->strategy == strategy && g->ranks == ranks && comparable_key(*g) == key) {
      candidates.push_back(g);
      if (g->study == like.study) same_study.push_back(g);
    }
  }
  // Two studies may run the same parameters (one engine build against another, say): each is its
  // own baseline. A study that runs one strategy only takes its baseline from the others.
  if (!same_study.empty()) candidates = same_study;
  if (candidates.size() == 1) return candidates[0];
  for (const Group* g : candidates) {
    if (sync_mode(*g) == sync_mode(like)) return g;
  }
  for (const Group* g : candidates) {
    if (!resolved_sync_mode(*g).empty() && resolved_sync_mode(*g) == resolved_sync_mode(like)) return g;
  }
  return nullptr;
}

namespace {

ScalingBasis scaling_basis(const TrainingRow& r) {
  if (r.cores.oversubscribed()) return ScalingBasis::Oversubscribed;
  if (!r.one_rank || r.group->ranks == 1) return ScalingBasis::Comparable;
  auto threads = r.cores.total_threads(), base = core_use(*r.one_rank).total_threads();
  return threads && base && *threads <= *base ? ScalingBasis::SameCores : ScalingBasis::Comparable;
}

}  // namespace

std::string ranks_cell(const TrainingRow& r) {
  std::string ranks = std::to_string(r.group->ranks);
  return r.cores.oversubscribed() ? ranks + " " + kOversubscribedMark : ranks;
}

std::string scaling_cell(const TrainingRow& r) {
  if (!r.scaling_efficiency) return "-";
  switch (r.scaling_basis) {
    case ScalingBasis::Oversubscribed: return kOversubscribedMark;
    case ScalingBasis::SameCores: return percent(*r.scaling_efficiency) + " " + kSameCoresMark;
    case ScalingBasis::Comparable: break;
  }
  return percent(*r.scaling_efficiency);
}

std::string strategy_title(const std::string& strategy) {
  std::string out = strategy;
  for (char& ch : out) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return out;
}

std::vector<TrainingRow> training_rows(const std::vector<const Group*>& groups, const std::string& reference) {
  std::vector<const Group*> sorted = groups;
  const auto order = strategy_order(groups);
  std::stable_sort(sorted.begin(), sorted.end(), [&order](const Group* a, const Group* b) {
    if (order.at(a->strategy) != order.at(b->strategy)) return order.at(a->strategy) < order.at(b->strategy);
    if (a->ranks != b->ranks) return a->ranks < b->ranks;
    return natural_less(a->label(), b->label());
  });
  std::vector<TrainingRow> rows;
  for (const Group* g : sorted) {
    TrainingRow r;
    r.group = g;
    r.tokens_per_sec = summarize(g->sample("tokens_per_sec").values);
    r.step_ms = summarize(g->sample("step_time_ms").values);
    r.data_ms = summarize(g->sample("data_time_ms").values);
    r.forward_backward_ms = summarize(g->sample("forward_backward_ms").values);
    r.optimizer_ms = summarize(g->sample("optimizer_step_ms").values);
    r.peak_memory_mb = summarize(g->sample("peak_memory_mb").values);
    r.model_state_mib = summarize(model_state_mib(*g));
    r.one_rank = comparable_group(groups, *g, g->strategy, 1);
    if (r.one_rank && r.tokens_per_sec.n) {
      double base = mean(r.one_rank->sample("tokens_per_sec").values);
      if (base > 0) r.scaling_efficiency = r.tokens_per_sec.mean / (base * g->ranks);
    }
    r.reference = reference.empty() ? nullptr : comparable_group(groups, *g, reference, g->ranks);
    if (r.reference) {
      double base_memory = mean(r.reference->sample("peak_memory_mb").values);
      double base_step = mean(r.reference->sample("step_time_ms").values);
      if (base_memory > 0 && r.peak_memory_mb.n)
        r.memory_saving_vs_reference = (base_memory - r.peak_memory_mb.mean) / base_memory;
      if (base_step > 0 && r.step_ms.n) r.step_delta_vs_reference = (r.step_ms.mean - base_step) / base_step;
      double base_state = mean(model_state_mib(*r.reference));
      if (base_state > 0 && r.model_state_mib.n)
        r.state_saving_vs_reference = (base_state - r.model_state_mib.mean) / base_state;
    }
    r.cores = core_use(*g);
    r.scaling_basis = scaling_basis(r);
    rows.push_back(r);
  }
  return rows;
}

std::string render_training_section(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance,
                                    const std::string& reference) {
  bool stacks = provenance.mixed();
  const std::string base = strategy_title(reference);
  const std::string memory_vs = "memory saving vs " + base, state_vs = "state saving vs " + base,
                    step_vs = "step time vs " + base;
  std::vector<Column> columns = {{"strategy"},
                                 {"ranks", Align::Right},
                                 {"configuration"},
                                 {"precision"},
                                 {"data ms", Align::Right},
                                 {"fwd+bwd ms", Align::Right},
                                 {"optimizer ms", Align::Right},
                                 {"step ms", Align::Right},
                                 {"tokens/s", Align::Right},
                                 {"peak MiB", Align::Right},
                                 {"state MiB", Align::Right},
                                 {"scaling eff.", Align::Right},
                                 {memory_vs, Align::Right},
                                 {state_vs, Align::Right},
                                 {step_vs, Align::Right},
                                 {"n", Align::Right}};
  if (stacks) columns.push_back({"stack"});
  MarkdownTable table(columns);
  bool oversubscribed = false, same_cores = false;  // which machine marks appear, to explain them
  bool left_out = false;  // a row's n counts attempts on a disturbed machine that it leaves out
  // Each row named by what tells it from the others: the study only when several are shown.
  const auto names = distinct_names(groups, false, false);
  for (const auto& r : training_rows(groups, reference)) {
    const Group& g = *r.group;
    bool is_reference = r.reference == &g;
    oversubscribed = oversubscribed || r.cores.oversubscribed();
    left_out = left_out || !g.disturbed.empty();
    same_cores = same_cores || r.scaling_basis == ScalingBasis::SameCores;
    std::vector<std::string> row = {
        g.strategy,
        ranks_cell(r),
        names.at(&g),
        precision(g),
        mean_std_cell(r.data_ms, 2),
        mean_std_cell(r.forward_backward_ms, 2),
        mean_std_cell(r.optimizer_ms, 2),
        mean_std_cell(r.step_ms, 2),
        mean_std_cell(r.tokens_per_sec, 0),
        mean_std_cell(r.peak_memory_mb, 1),
        mean_std_cell(r.model_state_mib, 1),
        scaling_cell(r),
        is_reference ? "reference"
                     : (r.memory_saving_vs_reference ? signed_percent(*r.memory_saving_vs_reference) : "-"),
        is_reference ? "reference" : (r.state_saving_vs_reference ? signed_percent(*r.state_saving_vs_reference) : "-"),
        is_reference ? "reference" : (r.step_delta_vs_reference ? signed_percent(*r.step_delta_vs_reference) : "-"),
        g.n_text()};
    if (stacks) row.push_back(provenance.stack_cell(g));
    table.add_row(std::move(row));
  }
  table.drop_uninformative({"precision", "data ms", "fwd+bwd ms", "optimizer ms", "peak MiB", "state MiB",
                            "scaling eff.", memory_vs, state_vs, step_vs},
                           {"-", "reference"});
  // What every row shares is said once, above the table.
  std::string shared;
  for (const auto& [title, value] : table.drop_constant({"strategy", "precision"}))
    shared += fmt::format("{}{} {}", shared.empty() ? "" : ", ", title, value);
  std::string out = "## Training\n\n";
  if (stacks)
    out += "**Mixed provenance (`--allow-mixed`): rows come from different builds; see the `stack` column.**\n\n";
  if (!shared.empty()) out += "Every row: " + shared + ".\n\n";
  out += table.render();
  out += fmt::format(
      "\nCells are mean ± sample std over the n successful repeats (n shows succeeded/total when some "
      "failed{}). {}{}\n\n",
      left_out ? ", or ran on a disturbed machine and are left out" : "", kCellLegend,
      std::string(oversubscribed ? std::string(" ") + kOversubscribedLegend + " " + kOversubscribedScalingNote : "") +
          (same_cores ? std::string(" ") + kSameCoresLegend : ""));
  // What each derived column means, for the columns this table kept.
  if (table.has_column("scaling eff."))
    out +=
        "- scaling eff. = tokens/s ÷ (tokens/s of the same strategy at 1 rank × ranks), same parameters otherwise.\n";
  if (table.has_column(memory_vs))
    out += fmt::format(
        "- {0} = ({1} peak MiB − this peak MiB) ÷ {1} peak MiB, {1} at the same ranks and parameters (the same "
        "requested gradient sync mode, else the same resolved one); positive means less memory than {1}.\n",
        memory_vs, base);
  if (table.has_column("state MiB"))
    out +=
        "- state MiB = parameters + gradients (at their peak) + optimizer state + FSDP's gathered parameters "
        "(their peak) held by one rank, the largest over ranks, from the engine's exact accounting (see "
        "[Memory](#memory)); peak MiB is the process's peak RSS, which also holds LibTorch itself.\n";
  if (table.has_column(state_vs)) out += "- " + state_vs + " compares state MiB the same way.\n";
  if (table.has_column(step_vs))
    out += fmt::format("- {0} = (this step ms − {1} step ms) ÷ {1} step ms; positive means slower than {1}.\n", step_vs,
                       base);
  out +=
      "- Derived columns use the means; \"-\" means this report holds no comparable baseline; a column with no "
      "comparison in any row is left out.\n\n";
  out += render_detail_table(groups, training_metrics());
  return out;
}

std::string render_runtime_section(const std::vector<const Group*>& groups, const ProvenanceAnalysis& provenance) {
  // The counts the results carry, whatever the engine calls them: sync_rounds first, then each kind
  // of collective in name order, left out when no configuration here issued it at all.
  const std::string prefix = "collectives_per_step.", rounds = "sync_rounds";
  std::vector<std::string> collectives;
  for (const auto& name : metric_names_under(groups, prefix)) {
    const bool issued = std::any_of(groups.begin(), groups.end(), [&](const Group* g) {
      const auto values = g->sample(prefix + name).values;
      return std::any_of(values.begin(), values.end(), [](double v) { return v != 0; });
    });
    if (name == rounds) collectives.insert(collectives.begin(), name);
    else if (issued) collectives.push_back(name);
  }
  std::vector<std::string> state_fields = resume_checkpoint_fields(groups);
  std::vector<Column> columns = {{"strategy"},       {"ranks", Align::Right}, {"configuration"},
                                 {"sync requested"}, {"sync resolved"},       {"grad accum", Align::Right}};
  for (const auto& c : collectives) columns.push_back({c + "/step", Align::Right});
  for (const auto& f : state_fields) columns.push_back({f});
  columns.push_back({"n", Align::Right});
  if (provenance.mixed()) columns.push_back({"stack"});
  MarkdownTable table(columns);
  for (const auto& r : training_rows(groups)) {
    const Group& g = *r.group;
    std::string requested = g.result_text("gradient_sync_mode");
    std::string resolved = g.result_text("resolved_gradient_sync_mode");
    std::string accum = g.result_text("gradient_accumulation_steps");
    std::vector<std::string> row = {g.strategy,
                                    std::to_string(g.ranks),
                                    g.label(),
                                    requested.empty() ? g.first().param("gradient_sync_mode", "-") : requested,
                                    resolved.empty() ? "-" : resolved,
                                    accum.empty() ? g.first().param("grad_accum_steps", "-") : accum};
    for (const auto& c : collectives) row.push_back(constant_or_mean(g.sample(prefix + c).values));
    for (const auto& f : state_fields) {
      std::string text = g.result_text(f);
      row.push_back(text.empty() ? "-" : text);
    }
    row.push_back(g.n_text());
    if (provenance.mixed()) row.push_back(provenance.stack_cell(g));
    table.add_row(std::move(row));
  }
  return "## Runtime\n\nHow each configuration actually ran, as its results report it. Collectives are calls per "
         "optimizer step; sync_rounds counts gradient synchronisation rounds. Values that differ between repeats "
         "are shown as mean ± std or joined with '/'.\n\n" +
         table.render() + "\n";
}

}  // namespace mt
