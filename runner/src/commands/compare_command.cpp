// mtrun compare A B | --baseline NAME [CAMPAIGN]: two campaigns side by side, configurations matched
// by the parameters that did not change, with a noise verdict; --fail-on-regression PCT makes it a
// CI gate (exit 1 on a regression beyond noise).
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "checked_output.h"
#include "commands/commands.h"
#include "output_path.h"
#include "report/compare/compare.h"
#include "report/model/results_source.h"
#include "runner_error.h"
#include "store/baselines.h"
#include "store/campaign_lookup.h"

namespace mt {
namespace {

struct CompareOptions {
  std::filesystem::path db;
  std::optional<std::string> a;
  std::optional<std::string> b;
  std::optional<std::string> baseline;
  std::vector<std::string> match;
  std::vector<std::string> ignore;
  std::optional<double> fail_on_regression;
  bool allow_different_stack = false;
  bool keep_disturbed = false;
  std::optional<std::filesystem::path> output;
};

// The campaigns compared, A first, and how A is introduced.
struct Sides {
  Campaign a, b;
  std::string a_label;
};

Sides choose_sides(Database& db, const CompareOptions& options) {
  if (options.baseline) {
    if (options.b) {
      throw RunnerError(kExitUsage,
                        "with --baseline, give one campaign: the one compared with the baseline "
                        "(default: the latest campaign of the baseline's experiment)");
    }
    const Baseline baseline = find_baseline(db, *options.baseline);
    Campaign a = campaign_by_id(db, baseline.campaign_id);
    Campaign b = options.a ? campaign_by_id(db, *options.a) : latest_campaign_of(db, a.experiment);
    return {std::move(a), std::move(b), fmt::format("baseline `{}`", baseline.name)};
  }
  if (!options.a || !options.b) {
    throw RunnerError(kExitUsage, "compare needs two campaigns (A B), or --baseline NAME and a campaign");
  }
  return {campaign_by_id(db, *options.a), campaign_by_id(db, *options.b), ""};
}

int run_compare(const CompareOptions& options, std::ostream& out) {
  if (options.fail_on_regression && !(*options.fail_on_regression >= 0 && *options.fail_on_regression < 1000)) {
    throw RunnerError(kExitUsage, fmt::format("--fail-on-regression takes a percentage from 0 to 1000, got {}",
                                              *options.fail_on_regression));
  }
  if (options.output) refuse_output_onto_database(*options.output, options.db, "-o");
  auto db = open_results(options.db);
  const Sides sides = choose_sides(*db, options);
  // A campaign against itself always "passes": as a gate that would hide that nothing new ran.
  if (sides.a.id == sides.b.id) {
    if (!options.baseline) {
      throw RunnerError(kExitUsage, fmt::format("A and B are the same campaign, {}: compare needs two", sides.a.id));
    }
    const std::string subject = options.a
                                    ? fmt::format("campaign {}", sides.b.id)
                                    : fmt::format("the latest campaign of `{}`, {},", sides.b.experiment, sides.b.id);
    throw RunnerError(kExitUsage, fmt::format("{} is {} itself: nothing to compare it with{}", subject, sides.a_label,
                                              options.a ? "" : " yet (run the experiment at the revision to judge)"));
  }
  ComparisonOptions comparison;
  comparison.match = {{options.match.begin(), options.match.end()}, {options.ignore.begin(), options.ignore.end()}};
  comparison.fail_on_regression_pct = options.fail_on_regression;
  comparison.allow_different_stack = options.allow_different_stack;
  comparison.keep_disturbed = options.keep_disturbed;
  comparison.a_label = sides.a_label;
  const ComparisonOutcome outcome =
      compare_campaigns(load_report_data(*db, {sides.a}), load_report_data(*db, {sides.b}), comparison);
  if (!options.output) {
    out << outcome.markdown;
  } else {
    write_file_in_new_folder_or_throw(*options.output, outcome.markdown);
    out << "wrote " << options.output->string() << '\n';
    if (!outcome.stack_note.empty()) fmt::print(out, "compared across machines or stacks: {}\n", outcome.stack_note);
    if (outcome.gate) out << gate_summary(*outcome.gate) << '\n';
  }
  return outcome.gate && !outcome.gate->passed() ? kExitFailure : kExitOk;
}

}  // namespace

CommandRunner register_compare_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand(
      "compare",
      "two campaigns side by side: configurations matched by the parameters that did not change, ratio of means, "
      "Welch p-value; --fail-on-regression PCT exits 1 when one got worse beyond noise");
  cmd->add_option("A", options->a,
                  "baseline campaign id or prefix (with --baseline: the campaign compared with it, "
                  "default the latest of the baseline's experiment)");
  cmd->add_option("B", options->b, "campaign compared with A");
  cmd->add_option("--baseline", options->baseline, "compare with the campaign of this named baseline (mtrun baseline)");
  cmd->add_option("--match", options->match,
                  "match configurations on this parameter even when its value changed (repeatable)")
      ->expected(1)
      ->take_all()
      ->delimiter(',');
  cmd->add_option("--ignore", options->ignore,
                  "leave this parameter out of the match, showing its values on both sides (repeatable)")
      ->expected(1)
      ->take_all()
      ->delimiter(',');
  cmd->add_option("--fail-on-regression", options->fail_on_regression,
                  "exit 1 when a configuration is worse by more than PCT % of A's mean and beyond noise "
                  "(Holm-adjusted Welch p < 0.05), cannot be judged because its values are not finite, or failed "
                  "in B where it succeeded in A")
      ->option_text("PCT");
  cmd->add_flag("--allow-different-stack", options->allow_different_stack,
                "compare campaigns run on different machines or software stacks (refused with exit 4 otherwise)");
  cmd->add_flag("--keep-disturbed", options->keep_disturbed,
                "average attempts run on a disturbed machine in with the rest (docs/measurement.md)");
  cmd->add_option("-o,--output", options->output, "write the comparison here instead of printing it");
  cmd->footer(
      "Exit status: 0 compared (and the gate passed); 1 the gate failed: a configuration got worse beyond "
      "noise, its values were not finite so it could not be judged, or it failed in B where it succeeded in A; 2 bad "
      "input, or a gate with nothing it could "
      "judge; 4 different machines or software stacks. "
      "Rules: docs/measurement.md, \"Comparing campaigns, the regression gate and history\".");
  return [options, &global](std::ostream& out) {
    options->db = global.db;
    return run_compare(*options, out);
  };
}

}  // namespace mt
