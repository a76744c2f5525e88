// mtrun compare A B: the same groups of two campaigns side by side, with a noise verdict.
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include "checked_output.h"
#include "commands/commands.h"
#include "report/compare.h"
#include "report/results_source.h"
#include "runner_error.h"

namespace mt {
namespace {

struct CompareOptions {
  std::filesystem::path db;
  std::string a;
  std::string b;
  std::optional<std::filesystem::path> output;
};

int run_compare(const CompareOptions& options, std::ostream& out) {
  auto db = open_results(options.db);
  ReportData a = load_report_data(*db, {campaign_by_id(*db, options.a)});
  ReportData b = load_report_data(*db, {campaign_by_id(*db, options.b)});
  std::string markdown = render_comparison(a, b);
  if (!options.output) {
    out << markdown;
    return kExitOk;
  }
  if (options.output->has_parent_path()) std::filesystem::create_directories(options.output->parent_path());
  write_file_or_throw(*options.output, markdown);
  out << "wrote " << options.output->string() << '\n';
  return kExitOk;
}

}  // namespace

CommandRunner register_compare_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand("compare", "two campaigns side by side: ratio of means, Welch p-value");
  cmd->add_option("A", options->a, "baseline campaign id or prefix")->required();
  cmd->add_option("B", options->b, "campaign compared with it")->required();
  cmd->add_option("-o,--output", options->output, "write the comparison here instead of printing it");
  return [options, &global](std::ostream& out) {
    options->db = global.db;
    return run_compare(*options, out);
  };
}

}  // namespace mt
