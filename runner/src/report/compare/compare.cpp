#include "report/compare/compare.h"

#include <set>

#include <fmt/format.h>

#include "report/render/cells.h"
#include "report/model/campaign_drift.h"
#include "report/model/contrast.h"
#include "report/sections/detail_table.h"
#include "report/model/disturbance_summary.h"
#include "report/model/before_launch_notes.h"
#include "report/model/groups.h"
#include "report/model/machine_context.h"
#include "report/model/measurement_window.h"
#include "report/render/markdown_table.h"
#include "table_cell.h"
#include "report/model/provenance_check.h"
#include "report/compare/stack_difference.h"
#include "runner_error.h"

namespace mt {
namespace {

std::string revisions(const ReportData& data) {
  ProvenanceAnalysis p = analyse_provenance(data.trials);
  std::string out;
  for (const auto& [rev, n] : p.revisions) out += (out.empty() ? "" : ", ") + code(rev);
  return out.empty() ? "unknown" : out;
}

std::string describe(const char* letter, const ReportData& data, const std::string& label) {
  const Campaign& c = data.campaigns.front();
  return fmt::format("- **{}**: {}campaign {} of {}, created {} at source revision {}, built from {}\n", letter,
                     label.empty() ? "" : label + ", ", code(c.id), code(c.experiment), c.created_at,
                     code(c.source_revision), revisions(data));
}

Configuration configuration_of(const Group& g) {
  Configuration c;
  c.study = g.study;
  for (const auto& [name, value] : g.planned->parameters.items()) c.params[name] = g.planned->param(name);
  return c;
}

// Whether a group has figures to compare: succeeded trials (on a quiet machine unless kept).
bool averaged(const Group& g) { return !g.succeeded.empty(); }

std::vector<Group> averaged_only(const std::vector<Group>& groups) {
  std::vector<Group> out;
  for (const auto& g : groups) {
    if (averaged(g)) out.push_back(g);
  }
  return out;
}

// What became of a configuration a side planned but has no figures for: "3 of 3 trials failed (the
// latest attempt of one: crashed: segfault)", "ran only on a disturbed machine", "not run".
std::string without_figures(const Group& g, const std::vector<ReportTrial>& trials) {
  if (g.failed > 0) {
    for (const auto& t : trials) {
      if (t.group_key != g.key || t.succeeded() || !attempt_failed(t.latest_state)) continue;
      std::string reason = escape_control_characters(t.error_reason);
      if (reason.size() > 120) reason = reason.substr(0, 117) + "...";
      return fmt::format("{} of {} trials failed (the latest attempt of one: {}{})", g.failed, g.total, *t.latest_state,
                         reason.empty() ? "" : ": " + reason);
    }
  }
  if (!g.disturbed.empty()) return "ran only on a disturbed machine (rerun it on a quiet one, or --keep-disturbed)";
  return fmt::format("not run to the end ({} trial{} not run, running or interrupted)", g.total,
                     g.total == 1 ? "" : "s");
}

std::vector<Configuration> configurations_of(const std::vector<Group>& groups) {
  std::vector<Configuration> out;
  for (const auto& g : groups) out.push_back(configuration_of(g));
  return out;
}

std::string changed_list(const std::vector<ParameterChange>& changed) {
  std::string out;
  for (const auto& c : changed)
    out += fmt::format("- {} (study {}): A {}, B {}\n", code(c.name), code(c.study), c.a, c.b);
  return out;
}

// A configuration found in one campaign only, with the values that tell it from the other's.
std::string unmatched_name(const Group& g, const Configuration& c, const ConfigurationMatch& match) {
  auto it = match.distinguishing.find(c.study);
  std::string values = it == match.distinguishing.end() ? "" : parameter_text(c, it->second);
  return values.empty() ? group_name(g) : fmt::format("{} ({})", group_name(g), values);
}

std::string stack_section(const std::vector<StackDifference>& differences, const ComparisonOptions& options) {
  std::string out;
  if (any_blocking(differences)) {
    out += fmt::format(
        "**Different machine or software stack (`--allow-different-stack`)**: {}. Ratios below include "
        "that difference, not only the change between the campaigns.\n\n",
        describe_differences(differences, true));
  }
  std::string other = describe_differences(differences, false);
  if (!other.empty()) out += fmt::format("Software that differs, not by itself a reason to refuse: {}.\n\n", other);
  return out;
}

// What the table of figures leaves out: the configurations only one campaign has figures for, and
// failures in B. A failure in B fails the gate where it cost B every figure A has (a crash is the
// largest regression there is), or where none of A's trials failed; a configuration B has no figures
// for otherwise (disturbed, not run) is not judged.
struct BeyondFigures {
  std::string listed;                    // the markdown list items
  std::vector<std::string> failed_in_b;  // fails the gate
  std::vector<std::string> not_judged;
};

BeyondFigures beyond_figures(const std::vector<Group>& groups_a, const std::vector<Group>& groups_b,
                             const std::vector<Configuration>& configs_a, const std::vector<Configuration>& configs_b,
                             const ConfigurationMatch& match, const ReportData& a, const ReportData& b) {
  BeyondFigures out;
  for (const auto& [i, j] : match.pairs) {
    const Group &ga = groups_a[i], &gb = groups_b[j];
    const std::string name = group_name(gb);
    if (averaged(ga) && !averaged(gb)) {
      const std::string what = without_figures(gb, b.trials);
      out.listed += fmt::format("- only in A: {}; in B {}\n", name, what);
      (gb.failed > 0 ? out.failed_in_b : out.not_judged).push_back(fmt::format("{}: in B {}", name, what));
    } else if (!averaged(ga) && averaged(gb)) {
      out.listed += fmt::format("- only in B: {}; in A {}\n", name, without_figures(ga, a.trials));
    } else if (averaged(ga) && gb.failed > 0 && ga.failed == 0) {
      // Figures on both sides, but some of B's trials fail where none of A's did.
      out.failed_in_b.push_back(fmt::format("{}: in B {}, in A none", name, without_figures(gb, b.trials)));
    }
  }
  for (size_t i : match.only_a) {
    if (averaged(groups_a[i]))
      out.listed += fmt::format("- only in A: {}\n", unmatched_name(groups_a[i], configs_a[i], match));
  }
  for (size_t j : match.only_b) {
    if (averaged(groups_b[j]))
      out.listed += fmt::format("- only in B: {}\n", unmatched_name(groups_b[j], configs_b[j], match));
  }
  return out;
}

// Why the comparison has no rows: a side with no configuration averaged (all failed, or all ran on
// a disturbed machine, as the warnings above name) is not "nothing in common", nor are configurations
// both planned that have figures on one side only (listed below the table's place).
std::string nothing_compared(const std::vector<Group>& groups_a, const std::vector<Group>& groups_b,
                             bool planned_in_common) {
  if (!groups_a.empty() && !groups_b.empty()) {
    return planned_in_common ? "No configuration has figures in both campaigns (see below).\n\n"
                             : "The two campaigns have no configuration in common.\n\n";
  }
  const char* who = groups_a.empty() && groups_b.empty() ? "neither campaign has a"
                    : groups_a.empty()                   ? "campaign A has no"
                                                         : "campaign B has no";
  return fmt::format(
      "Nothing is compared: {} configuration with successful attempts on a quiet machine (see above).\n\n", who);
}

}  // namespace

ComparisonOutcome compare_campaigns(const ReportData& a, const ReportData& b, const ComparisonOptions& options) {
  const std::vector<StackDifference> differences = stack_differences(a.trials, b.trials);
  if (any_blocking(differences) && !options.allow_different_stack) {
    throw RunnerError(kExitIncomparable,
                      fmt::format("the campaigns ran on different machines or software stacks ({}); their numbers "
                                  "differ for that reason alone. Compare campaigns of one machine and stack, or pass "
                                  "--allow-different-stack to compare them anyway (the output says so)",
                                  describe_differences(differences, true)));
  }
  const bool keep_a = a.keep_disturbed || options.keep_disturbed, keep_b = b.keep_disturbed || options.keep_disturbed;
  // Every configuration either campaign planned is matched, also those without figures: one that
  // failed in B where it succeeded in A is the largest regression there is, not "only in A".
  std::vector<Group> groups_a = every_group(a.trials, keep_a), groups_b = every_group(b.trials, keep_b);
  const std::vector<Configuration> configs_a = configurations_of(groups_a), configs_b = configurations_of(groups_b);
  check_named_parameters(configs_a, configs_b, options.match);
  const ConfigurationMatch match = match_configurations(configs_a, configs_b, options.match);

  std::vector<ContrastRow> rows;
  for (const auto& [i, j] : match.pairs) {
    const Group &ga = groups_a[i], &gb = groups_b[j];
    if (!averaged(ga) || !averaged(gb)) continue;
    std::string name = group_name(gb);
    if (core_use(ga).oversubscribed() || core_use(gb).oversubscribed()) name += std::string(" ") + kOversubscribedMark;
    for (const auto& m : key_metrics(ga, gb)) {
      auto va = ga.sample(m.name).values, vb = gb.sample(m.name).values;
      if (va.empty() && vb.empty()) continue;
      // B against A: the ratio reads B ÷ A.
      rows.push_back({name, &gb, &ga, m, contrast(vb, va), std::nullopt, ""});
    }
  }
  rows = decide(std::move(rows));

  ComparisonOutcome outcome;
  std::string out = "# Comparison\n\n" + describe("A", a, options.a_label) + describe("B", b, "") + "\n";
  out += stack_section(differences, options);
  if (any_blocking(differences)) outcome.stack_note = describe_differences(differences, true);
  const std::string& id_a = a.campaigns.front().id;
  const std::string& id_b = b.campaigns.front().id;
  if (auto w = calibration_difference("A", calibrations_of(a.trials, id_a), "B", calibrations_of(b.trials, id_b))) {
    out += "**" + *w + "**\n\n";
  }
  if (auto w = settling_difference("A", a.trials, "B", b.trials)) out += "**" + *w + "**\n\n";
  std::string disturbed;
  for (const auto& w : disturbance_warnings(a.trials, keep_a)) disturbed += "- A: " + w + "\n";
  for (const auto& w : disturbance_warnings(b.trials, keep_b)) disturbed += "- B: " + w + "\n";
  if (!disturbed.empty()) out += disturbed + "\n";
  // A matched configuration whose step time still moved over its window: its ratio leans with it.
  std::string drifted;
  for (const auto& [i, j] : match.pairs) {
    if (!averaged(groups_a[i]) || !averaged(groups_b[j])) continue;
    if (std::string note = drift_note(groups_a[i]); !note.empty()) drifted += "- A: " + note + "\n";
    if (std::string note = drift_note(groups_b[j]); !note.empty()) drifted += "- B: " + note + "\n";
  }
  // A campaign whose every configuration drifted as it ran: its absolute figures, and so the
  // ratios against the other campaign, depend on when they ran.
  const std::vector<Group> averaged_a = averaged_only(groups_a), averaged_b = averaged_only(groups_b);
  for (const auto& [side, groups] : {std::pair{"A", &averaged_a}, std::pair{"B", &averaged_b}}) {
    for (const auto& d : campaign_drifts(group_pointers(*groups))) {
      if (d.marked()) {
        drifted += fmt::format("- {}: {}: {}: its figures depend on when they ran, and so do the ratios below\n", side,
                               kCampaignDriftMark, campaign_drift_text(d, false));
      }
    }
  }
  if (!drifted.empty()) out += drifted + "\n";
  if (!match.changed.empty()) {
    out += "Parameters that differ between the campaigns; configurations are matched on the others:\n\n" +
           changed_list(match.changed) + "\n";
  }
  out += fmt::format(
      "Configurations are matched by study and parameters{}. Ratio = mean B ÷ mean A; the verdict says "
      "how B compares with A. {}\n\n",
      match.changed.empty() ? "" : " (those above left out)", verdict_rules(tested_count(rows)));
  out += rows.empty() ? nothing_compared(averaged_a, averaged_b, !match.pairs.empty())
                      : render_contrasts(rows, {"configuration", "B mean ± std (n)", "A mean ± std (n)", "B/A"}) +
                            "\n" + kCellLegend + "\n\n";
  const BeyondFigures beyond = beyond_figures(groups_a, groups_b, configs_a, configs_b, match, a, b);
  if (!beyond.listed.empty())
    out += "Configurations with successful trials in one campaign only:\n\n" + beyond.listed + "\n";
  if (options.fail_on_regression_pct) {
    GateOutcome gate = judge_regressions(rows, *options.fail_on_regression_pct);
    gate.failed_in_b = beyond.failed_in_b;
    gate.not_judged.insert(gate.not_judged.end(), beyond.not_judged.begin(), beyond.not_judged.end());
    if (gate.judged == 0 && gate.not_finite.empty() && gate.failed_in_b.empty()) {
      std::string why = gate.not_judged.empty() ? "no configuration with successful, undisturbed attempts was found "
                                                  "in both campaigns"
                                                : fmt::format("{}", fmt::join(gate.not_judged, "; "));
      if (!disturbed_groups(a.trials).empty() || !disturbed_groups(b.trials).empty()) {
        why += "; some configurations ran only on a disturbed machine (rerun them on a quiet one, or --keep-disturbed)";
      }
      throw RunnerError(kExitUsage, fmt::format("--fail-on-regression: nothing could be judged ({})", why));
    }
    out += render_gate(gate) + "\n";
    outcome.gate = std::move(gate);
  }
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  outcome.markdown = std::move(out);
  return outcome;
}

std::string render_comparison(const ReportData& a, const ReportData& b) {
  ComparisonOptions options;
  options.allow_different_stack = true;
  return compare_campaigns(a, b, options).markdown;
}

}  // namespace mt
