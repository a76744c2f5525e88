// mtrun report: a markdown report (or the same as one HTML page) of one campaign (or every campaign of an experiment), with its
// plots written beside it.
#include <iostream>

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "checked_output.h"
#include "commands/campaign_selection.h"
#include "commands/commands.h"
#include "output_path.h"
#include "experiment/question_file.h"
#include "report/model/references.h"
#include "report/report.h"
#include "report/render/report_html.h"
#include "report/model/results_source.h"
#include "runner_error.h"

namespace mt {
namespace {

struct ReportCommandOptions {
  std::filesystem::path db;
  std::optional<std::string> campaign;    // default: the latest
  std::optional<std::string> experiment;  // every campaign of it
  std::optional<std::filesystem::path> output;
  bool html = false;  // one self-contained HTML page (also chosen by an output name ending in .html)
  bool allow_mixed = false;
  bool keep_disturbed = false;
  std::optional<std::filesystem::path> questions;   // an experiment file whose questions to answer
  std::optional<std::filesystem::path> references;  // published figures to hold the groups against
};

// The report's file: its plots go to a folder of the same name without the extension, so a name
// without one would be that folder. "-" is standard output, as for most programs.
std::optional<std::filesystem::path> report_file(const ReportCommandOptions& options) {
  if (!options.output || *options.output == "-") return std::nullopt;
  const std::filesystem::path& file = *options.output;
  if (file.stem().empty() || file.extension().empty() || file.filename() == "..") {
    throw RunnerError(kExitUsage, fmt::format("-o {}: name the report's file with its extension (NAME.md, or "
                                              "NAME.html for one page): its plots go to a folder NAME beside it",
                                              file.string()));
  }
  refuse_output_onto_database(file, options.db, "-o");
  return file;
}

// A folder named where a file is wanted, refused in words rather than a stream's failure to read it.
void refuse_directory(const std::optional<std::filesystem::path>& file, const char* option) {
  std::error_code error;
  if (file && std::filesystem::is_directory(*file, error)) {
    throw RunnerError(kExitUsage, fmt::format("{} {}: a directory; name a file", option, file->string()));
  }
}

// The traces a report on standard output does not link, said on standard error, away from the report.
void note_traces_left_out(const RenderedReport& report, bool html, std::ostream& notes) {
  if (report.files_left_out == 0) return;
  fmt::print(notes,
             "mtrun: note: the {} on standard output links none of its {} trace file{}: there is no folder to "
             "write them into; save it with -o FILE.{} to have them beside it\n",
             html ? "page" : "report", report.files_left_out, report.files_left_out == 1 ? "" : "s",
             html ? "html" : "md");
}

int run_report(const ReportCommandOptions& options, std::ostream& out, std::ostream& notes) {
  const std::optional<std::filesystem::path> output = report_file(options);
  refuse_directory(options.references, "--references");
  refuse_directory(options.questions, "--questions");
  // The references file first: a mistake in it is reported before anything else is read.
  std::optional<ReferenceFile> references;
  if (options.references) references = read_references(*options.references);
  auto db = open_results(options.db);
  std::vector<Campaign> campaigns;
  if (options.experiment) {
    campaigns = experiment_campaigns(*db, experiment_named(*db, *options.experiment));
  } else {
    campaigns.push_back(options.campaign ? campaign_by_id(*db, *options.campaign) : latest_campaign(*db));
  }
  ReportData data = load_report_data(*db, campaigns);
  ReportOptions report_options;
  report_options.references = std::move(references);
  report_options.allow_mixed = options.allow_mixed;
  report_options.keep_disturbed = options.keep_disturbed;
  const bool html = options.html || (output && output->extension() == ".html");
  if (output) report_options.plot_dir = output->stem().string();
  // A page draws its plots inline, so they are made even when it goes to standard output; its
  // traces are files of their own, which have nowhere to go there.
  if (html && report_options.plot_dir.empty()) report_options.plot_dir = "plots";
  report_options.writes_kept_files = output.has_value();
  if (options.questions) {
    QuestionFile file = read_question_file(*options.questions);
    if (!file.errors.empty()) throw RunnerError(kExitUsage, format_diagnostics(file.errors));
    report_options.questions = std::move(file.questions);
    report_options.questions_source =
        fmt::format("declared in `{}` (given with `report --questions`)", options.questions->string());
  }
  RenderedReport report = render_report(data, report_options);
  const std::string page = html ? render_report_html(report, report_options.plot_dir) : "";
  if (!output) {
    out << (html ? page : report.markdown);
    note_traces_left_out(report, html, notes);
    return kExitOk;
  }
  const std::filesystem::path& file = *output;
  std::filesystem::path plot_dir = file.parent_path() / report_options.plot_dir;
  // The plot folder only when there are plots: a report without any (chains only) is one file, and
  // so is a page, which holds its plots (only kept traces go beside it).
  const bool plot_files = !html && !report.plots.empty();
  const std::filesystem::path folder = plot_files ? plot_dir : file.parent_path();
  // A plot or trace whose name is a link to the database would replace it as surely as -o would:
  // every file is checked before the first is written.
  if (plot_files) {
    for (const auto& plot : report.plots) refuse_output_onto_database(plot_dir / plot.file, options.db, "plot");
  }
  for (const auto& kept : report.files) refuse_output_onto_database(plot_dir / kept.path, options.db, "trace file");
  create_folder_or_throw(folder);
  write_file_or_throw(file, html ? page : report.markdown);
  if (plot_files) {
    for (const auto& plot : report.plots) write_file_or_throw(plot_dir / plot.file, plot.svg);
  }
  for (const auto& kept : report.files) {
    write_file_in_new_folder_or_throw(plot_dir / kept.path, read_attempt_file(*db, kept.attempt_id, kept.name));
  }
  const std::string traces = report.files.empty() ? ""
                                                  : fmt::format(" and {} trace file{}", report.files.size(),
                                                                report.files.size() == 1 ? "" : "s");
  if (html) {
    fmt::print(out, "wrote {} ({} plot{} inline){}\n", file.string(), report.plots.size(),
               report.plots.size() == 1 ? "" : "s",
               report.files.empty() ? "" : fmt::format(", {} in {}", traces.substr(5), plot_dir.string()));
  } else if (report.plots.empty() && report.files.empty()) {
    fmt::print(out, "wrote {} (nothing to plot)\n", file.string());
  } else {
    fmt::print(out, "wrote {} and {} plot{}{} in {}\n", file.string(), report.plots.size(),
               report.plots.size() == 1 ? "" : "s", traces, plot_dir.string());
  }
  return kExitOk;
}

}  // namespace

CommandRunner register_report_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<ReportCommandOptions>();
  auto* cmd = app.add_subcommand("report", "markdown (or HTML) report: mean ± std, scaling, memory, provenance, plots");
  auto* campaign = cmd->add_option("--campaign", options->campaign, "campaign id or prefix (default: the latest)");
  auto* experiment = cmd->add_option("--experiment", options->experiment,
                                     "every campaign of this experiment (its name or its file), repeats pooled");
  campaign->excludes(experiment);
  cmd->add_option("-o,--output", options->output,
                  "write the report here (NAME.md: plots go to a folder NAME beside it; NAME.html: one HTML page; -: "
                  "standard output)");
  cmd->add_flag("--html", options->html, "one self-contained HTML page: plots inline, sortable tables");
  cmd->add_flag("--keep-disturbed", options->keep_disturbed,
                "average attempts run on a disturbed machine in with the rest (docs/measurement.md)");
  cmd->add_option("--questions", options->questions,
                  "answer the questions of this experiment file instead of those kept with the campaign");
  cmd->add_option("--references", options->references,
                  "hold the groups against the published figures of this file (references/published.yaml)");
  cmd->add_flag("--allow-mixed", options->allow_mixed,
                "report results from different revisions or images together (tables say so)");
  return [options, &global](std::ostream& out) {
    options->db = global.db;
    return run_report(*options, out, std::cerr);
  };
}

}  // namespace mt
