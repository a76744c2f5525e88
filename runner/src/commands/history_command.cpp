// mtrun history EXPERIMENT: every campaign of an experiment in revision order, a metric's mean and
// CI per configuration and revision, and the revisions where it changed beyond noise.
#include <iostream>

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "checked_output.h"
#include "commands/campaign_selection.h"
#include "commands/commands.h"
#include "output_path.h"
#include "report/compare/history.h"
#include "report/model/results_source.h"
#include "runner_error.h"
#include "store/campaign_lookup.h"

namespace mt {
namespace {

struct HistoryCommandOptions {
  std::filesystem::path db;
  std::string experiment;
  std::optional<std::string> metric;
  double min_change_pct = 5;
  bool keep_disturbed = false;
  std::optional<std::filesystem::path> svg;
  std::optional<std::filesystem::path> output;
};

int run_history(const HistoryCommandOptions& options, std::ostream& out) {
  if (!(options.min_change_pct >= 0 && options.min_change_pct < 1000)) {
    throw RunnerError(kExitUsage,
                      fmt::format("--min-change takes a percentage from 0 to 1000, got {}", options.min_change_pct));
  }
  if (options.output) refuse_output_onto_database(*options.output, options.db, "-o");
  if (options.svg) refuse_output_onto_database(*options.svg, options.db, "--svg");
  if (options.output && options.svg) refuse_one_file_for_two_outputs(*options.output, "-o", *options.svg, "--svg");
  auto db = open_results(options.db);
  const ReportData data = load_report_data(*db, experiment_campaigns(*db, experiment_named(*db, options.experiment)));
  const RenderedHistory history =
      render_history(data, {options.metric, options.min_change_pct / 100, options.keep_disturbed});
  // Asked for a chart there is nothing to draw: refused before anything is written.
  if (options.svg && history.svg.empty()) {
    throw RunnerError(kExitUsage,
                      fmt::format("--svg {}: nothing to chart: no configuration of {} has successful trials",
                                  options.svg->string(), options.experiment));
  }
  if (options.output) {
    write_file_in_new_folder_or_throw(*options.output, history.markdown);
    out << "wrote " << options.output->string() << '\n';
  } else {
    out << history.markdown;
  }
  if (options.svg) {
    write_file_in_new_folder_or_throw(*options.svg, history.svg);
    out << "wrote " << options.svg->string() << '\n';
  }
  return kExitOk;
}

}  // namespace

CommandRunner register_history_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<HistoryCommandOptions>();
  auto* cmd = app.add_subcommand("history",
                                 "every campaign of an experiment in revision order: a metric per configuration and "
                                 "revision (mean, 95 % CI) and the revisions where it changed beyond noise");
  cmd->add_option("EXPERIMENT", options->experiment,
                  "the experiment's name (as `mtrun campaigns` shows it) or its file")
      ->required();
  cmd->add_option("--metric", options->metric, "the metric to follow (default: each configuration's key metric)");
  cmd->add_option("--min-change", options->min_change_pct,
                  "smallest change, in % of the earlier revision's mean, called a change point (default 5)")
      ->capture_default_str()
      ->option_text("PCT");
  cmd->add_flag("--keep-disturbed", options->keep_disturbed,
                "average attempts run on a disturbed machine in with the rest (docs/measurement.md)");
  cmd->add_option("--svg", options->svg, "also write the chart of the metric by revision here");
  cmd->add_option("-o,--output", options->output, "write the history here instead of printing it");
  return [options, &global](std::ostream& out) {
    options->db = global.db;
    return run_history(*options, out);
  };
}

}  // namespace mt
