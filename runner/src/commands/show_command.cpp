// mtrun show TRIAL: everything recorded about one trial — its parameters, every attempt (state,
// exit, duration, why it failed), and for one attempt (the latest unless --attempt) the machine's
// conditions and verdict, its metrics and its per-step series drawn as sparklines; --steps-csv
// writes those series to a file.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "checked_output.h"
#include "commands/commands.h"
#include "commands/number_options.h"
#include "output_path.h"
#include "commands/query_output.h"
#include "run/host_loads.h"
#include "runner_error.h"
#include "report/model/measurement_window.h"
#include "report/render/cells.h"
#include "sparkline.h"
#include "stats.h"
#include "store/before_launch.h"
#include "store/campaign_lookup.h"
#include "store/campaign_measurement.h"
#include "store/conditions_rows.h"
#include "store/log_scan.h"
#include "store/store_reader.h"
#include "store/trial_json.h"
#include "store/trial_lookup.h"
#include "table_cell.h"
#include "text_table.h"

namespace mt {
namespace {

struct ShowOptions {
  std::filesystem::path db;
  std::string trial;
  std::optional<std::string> campaign;
  std::optional<int> attempt;  // default: the latest
  std::optional<std::filesystem::path> steps_csv;
};

std::string optional_cell(const Statement& s, int i, const std::string& suffix = "") {
  return s.is_null(i) ? "-" : s.text(i) + suffix;
}

// Integers in full ("2701312" bytes, not "2.70131e+06"), other values to six significant digits.
std::string metric_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:.6g}", v);
}

void print_header(Database& db, const TrialRef& trial, std::ostream& out) {
  auto s = db.prepare("SELECT study, workload, ranks, repeat_index FROM trials WHERE id = ?");
  s.bind(1, trial.row);
  s.step();
  const Campaign campaign = campaign_by_id(db, trial.campaign_id);
  fmt::print(out, "trial {}  study {}  workload {}  ranks {}  repeat {}\n", trial.identity,
             escape_control_characters(s.text(0)), escape_control_characters(s.text(1)), s.text(2), s.text(3));
  fmt::print(out, "campaign {}  experiment {}  revision {}\n", campaign.id,
             escape_control_characters(campaign.experiment), short_revision(campaign.source_revision));
  if (trial.other_campaigns > 0) {
    fmt::print(out, "  (the same trial is in {} other campaign{}; --campaign chooses one)\n", trial.other_campaigns,
               trial.other_campaigns == 1 ? "" : "s");
  }
}

void print_parameters(Database& db, const TrialRef& trial, std::ostream& out) {
  auto s = db.prepare("SELECT parameters, axes, spec FROM trials WHERE id = ?");
  s.bind(1, trial.row);
  s.step();
  const auto params = stored_parameters(s.text(0), s.text(2));  // env.NAME values too
  const auto axes = nlohmann::json::parse(s.text(1), nullptr, /*allow_exceptions=*/false);
  auto is_axis = [&](const std::string& name) {
    return axes.is_array() && std::find(axes.begin(), axes.end(), name) != axes.end();
  };
  TextTable table({"parameter", "value", "set by"});
  if (params.is_object()) {
    for (const auto& [name, value] : params.items()) {
      table.add_row({name, value.is_string() ? value.get<std::string>() : value.dump(), is_axis(name) ? "axis" : ""});
    }
  }
  out << "\nparameters\n" << (table.empty() ? std::string("(none recorded)\n") : table.render());
}

// Prints every attempt; returns the id and number of the one to show in detail, if any ran.
std::optional<std::pair<std::int64_t, int>> print_attempts(Database& db, const TrialRef& trial,
                                                           std::optional<int> wanted, std::ostream& out) {
  auto s = db.prepare(
      "SELECT id, attempt, state, exit_code, signal, error_rank, error_step, started_at, duration_s, error_reason, "
      "log_path FROM attempts WHERE trial_id = ? ORDER BY attempt");
  s.bind(1, trial.row);
  TextTable table({"attempt", "state", "exit", "signal", "rank", "step", "started", "duration", "reason"});
  std::optional<std::pair<std::int64_t, int>> chosen;
  std::string log;
  while (s.step()) {
    const int number = int(s.integer(1));
    // Attempts recorded before the rank was read from the engine's message carry it only there.
    const auto named = s.is_null(5) && !s.is_null(9) ? rank_named_in(s.text(9)) : std::nullopt;
    table.add_row({s.text(1), s.text(2), optional_cell(s, 3), optional_cell(s, 4),
                   named ? std::to_string(*named) : optional_cell(s, 5), optional_cell(s, 6), s.text(7),
                   s.is_null(8) ? "-" : fmt::format("{:.1f} s", s.real(8)),
                   s.is_null(9) || s.text(9).empty() ? "-" : s.text(9)});
    if (!wanted || *wanted == number) {
      chosen = std::make_pair(s.integer(0), number);
      log = s.text(10);
    }
  }
  if (table.empty()) {
    out << "\nattempts\n(not run yet)\n";
    if (wanted) throw RunnerError(kExitUsage, fmt::format("trial {} has no attempt {}", trial.identity, *wanted));
    return std::nullopt;
  }
  out << "\nattempts\n" << table.render();
  if (!chosen) throw RunnerError(kExitUsage, fmt::format("trial {} has no attempt {}", trial.identity, *wanted));
  fmt::print(out, "log of attempt {}: {}\n", chosen->second, log);
  return chosen;
}

// Each machine of the job as its ranks read it over the job (`rank_host_window`), mtrun's own among
// them: what the verdict judged the hosts mtrun does not run on by.
void print_job_hosts(Database& db, std::int64_t attempt_id, std::ostream& out) {
  auto s = db.prepare("SELECT result_json FROM attempts WHERE id = ?");
  s.bind(1, attempt_id);
  if (!s.step() || s.is_null(0)) return;
  // No machine is mtrun's here (no boot id, no hostname): every one of them is listed.
  const std::vector<HostLoad> machines = other_machines_load(s.text(0), "", "");
  if (machines.empty()) return;
  TextTable table({"host", "CPUs", "window s", "other processes' CPU, % of a core", "steal %"});
  for (const HostLoad& m : machines) {
    table.add_row({escape_control_characters(m.hosts), std::to_string(m.cpus), fmt::format("{:.1f}", m.wall_s),
                   fmt::format("{:.1f}", m.foreign_cpu_pct), fmt::format("{:.1f}", m.steal_pct)});
  }
  fmt::print(out, "the job's hosts, as its ranks read them over the job:\n");
  out << table.render();
}

void print_conditions(Database& db, std::int64_t attempt_id, int number, std::ostream& out) {
  if (!has_measurement_schema(db)) {
    fmt::print(out, "\nconditions of attempt {}: not recorded (the database predates conditions)\n", number);
    return;
  }
  auto s = db.prepare(fmt::format(
      "SELECT verdict, reasons, wall_s, cpus, foreign_cpu_pct, steal_pct, load1_before, load1_after, "
      "load1_max, cpu_mhz_min, cpu_mhz_max, cpu_pressure_pct, memory_pressure_pct, mem_available_mib_min, "
      "calibration_gflops, {}, {} FROM attempt_conditions WHERE attempt_id = ?",
      db.user_version() >= kJobRanksHereSchemaVersion ? "job_ranks_here" : "NULL",
      db.user_version() >= kCoreRoundTripSchemaVersion ? "core_round_trip_ns_before, core_round_trip_ns_after"
                                                       : "NULL, NULL"));
  s.bind(1, attempt_id);
  if (!s.step()) {
    fmt::print(out, "\nconditions of attempt {}: not recorded\n", number);
    return;
  }
  fmt::print(out, "\nconditions of attempt {}: {}\n", number, s.text(0));
  if (!s.is_null(15) && s.integer(15) == 0) {
    fmt::print(out,
               "  no rank ran on the host mtrun ran on: the figures below are that host's, not the job's, and "
               "were not judged (the job's hosts' own load is, where its ranks reported it)\n");
  }
  const auto reasons = nlohmann::json::parse(s.text(1), nullptr, /*allow_exceptions=*/false);
  if (reasons.is_array()) {
    for (const auto& r : reasons) {
      if (r.is_string()) fmt::print(out, "  - {}\n", escape_control_characters(r.get<std::string>()));
    }
  }
  TextTable table({"reading", "value", "unit"});
  auto add = [&](const char* name, int column, const char* unit, int decimals) {
    if (!s.is_null(column)) table.add_row({name, fmt::format("{:.{}f}", s.real(column), decimals), unit});
  };
  add("job window", 2, "s", 1);
  table.add_row({"logical CPUs", s.text(3), ""});
  add("other processes' CPU", 4, "% of a core", 1);
  add("steal", 5, "%", 1);
  add("load before", 6, "", 2);
  add("load after", 7, "", 2);
  add("load, largest sampled", 8, "", 2);
  add("clock, lowest sampled", 9, "MHz", 0);
  add("clock, highest sampled", 10, "MHz", 0);
  add("CPU pressure", 11, "%", 1);
  add("memory pressure", 12, "%", 1);
  add("memory available, least", 13, "MiB", 0);
  add("SGEMM calibration", 14, "GFLOP/s per thread", 1);
  add("core round trip before", 16, "ns", 0);
  add("core round trip after", 17, "ns", 0);
  out << table.render();
  print_job_hosts(db, attempt_id, out);
}

void print_metrics(Database& db, std::int64_t attempt_id, int number, std::ostream& out) {
  auto s = db.prepare("SELECT name, value FROM metrics WHERE attempt_id = ? ORDER BY name");
  s.bind(1, attempt_id);
  TextTable table({"metric", "value"});
  while (s.step()) table.add_row({s.text(0), metric_text(s.real(1))});
  fmt::print(out, "\nmetrics of attempt {}\n", number);
  out << (table.empty() ? std::string("(none)\n") : table.render());
}

// One per-step series of an attempt, a value per step: the job's own (rank -1) when recorded,
// else over the ranks — the slowest for times and sizes, the mean otherwise (docs/measurement.md).
struct StepSeries {
  std::string name;
  std::vector<double> values;
  std::string over_ranks;  // how the ranks were combined; "" when the series was already the job's
};

bool takes_slowest(const std::string& name) {
  auto ends_with = [&](const std::string& suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with("_ms") || ends_with("_mb") || ends_with("_bytes");
}

std::vector<StepSeries> step_series(Database& db, std::int64_t attempt_id) {
  auto s =
      db.prepare("SELECT name, rank, step, value FROM step_metrics WHERE attempt_id = ? ORDER BY name, step, rank");
  s.bind(1, attempt_id);
  std::map<std::string, std::map<int, std::vector<double>>> per_rank;  // name → step → ranks' values
  std::map<std::string, std::map<int, double>> job;                    // name → step → the job's value
  while (s.step()) {
    if (s.integer(1) < 0) job[s.text(0)][int(s.integer(2))] = s.real(3);
    else per_rank[s.text(0)][int(s.integer(2))].push_back(s.real(3));
  }
  std::vector<StepSeries> out;
  for (const auto& [name, steps] : job) {
    StepSeries series{name, {}, ""};
    for (const auto& [step, value] : steps) series.values.push_back(value);
    out.push_back(std::move(series));
  }
  for (const auto& [name, steps] : per_rank) {
    if (job.count(name)) continue;
    const bool slowest = takes_slowest(name);
    StepSeries series{name, {}, slowest ? "slowest rank" : "mean of ranks"};
    for (const auto& [step, values] : steps) {
      series.values.push_back(slowest ? *std::max_element(values.begin(), values.end()) : mean(values));
    }
    out.push_back(std::move(series));
  }
  std::sort(out.begin(), out.end(), [](const StepSeries& a, const StepSeries& b) { return a.name < b.name; });
  return out;
}

// The attempt's metric `name`, if it recorded one.
std::optional<double> metric(Database& db, std::int64_t attempt_id, const std::string& name) {
  auto s = db.prepare("SELECT value FROM metrics WHERE attempt_id = ? AND name = ?");
  s.bind(1, attempt_id).bind(2, name);
  return s.step() ? std::optional<double>(s.real(0)) : std::nullopt;
}

void print_steps(Database& db, std::int64_t attempt_id, int number, std::ostream& out) {
  const auto series = step_series(db, attempt_id);
  fmt::print(out, "\nper-step series of attempt {}", number);
  // A training result's series hold the warmup steps first, then the measured ones.
  const auto warmup = metric(db, attempt_id, "warmup_steps"), steps = metric(db, attempt_id, "steps");
  if (!series.empty() && warmup && steps && *warmup > 0 && double(series.front().values.size()) == *warmup + *steps) {
    fmt::print(out, " (the first {} steps are warmup, not measured)", metric_text(*warmup));
  }
  out << "\n";
  if (series.empty()) {
    out << "(none recorded)\n";
    return;
  }
  TextTable table({"series", "steps", "min", "median", "max", "each step, lowest ▁ to highest █"});
  for (const auto& s : series) {
    const auto [low, high] = std::minmax_element(s.values.begin(), s.values.end());
    table.add_row({s.over_ranks.empty() ? s.name : fmt::format("{} ({})", s.name, s.over_ranks),
                   std::to_string(s.values.size()), metric_text(*low), metric_text(median(s.values)),
                   metric_text(*high), sparkline(s.values)});
  }
  out << table.render();
  // Whether the measured steps still moved one way (reports judge it over the repeats).
  const auto times =
      std::find_if(series.begin(), series.end(), [](const StepSeries& s) { return s.name == "step_time_ms"; });
  if (times != series.end() && steps && *steps > 0 && double(times->values.size()) >= *steps) {
    const std::vector<double> measured(times->values.end() - long(*steps), times->values.end());
    if (const auto drift = step_drift(measured)) {
      fmt::print(out, "step time drift: the last half of the measured steps {} {} than the first quarter\n",
                 percent(std::abs(*drift)), *drift < 0 ? "faster" : "slower");
    }
  }
}

// Every per-step value of the attempt, rank by rank (-1: the job's own), as CSV.
void write_steps_csv(Database& db, std::int64_t attempt_id, const std::filesystem::path& file) {
  auto s =
      db.prepare("SELECT name, rank, step, value FROM step_metrics WHERE attempt_id = ? ORDER BY name, rank, step");
  s.bind(1, attempt_id);
  std::string text = "series,rank,step,value\n";
  while (s.step()) text += fmt::format("{},{},{},{}\n", csv_field(s.text(0)), s.integer(1), s.integer(2), s.real(3));
  write_file_in_new_folder_or_throw(file, text);
}

// The whole account is composed before any of it is printed: a trial without the attempt asked for,
// or a CSV file that cannot be written, is an error alone, not one after pages of output.
int show(const ShowOptions& options, std::ostream& printed) {
  std::ostringstream out;
  if (options.steps_csv) refuse_output_onto_database(*options.steps_csv, options.db, "--steps-csv");
  auto db = open_store_read_only(options.db);
  const TrialRef trial = find_trial(*db, options.trial, options.campaign);
  print_header(*db, trial, out);
  print_parameters(*db, trial, out);
  const auto attempt = print_attempts(*db, trial, options.attempt, out);
  if (!attempt) {
    if (options.steps_csv) throw RunnerError(kExitUsage, "--steps-csv: the trial has not run yet, so it has no steps");
    printed << out.str();
    return 0;
  }
  const auto [attempt_id, number] = *attempt;
  const std::string before = describe_before_launch(read_before_launch(*db, attempt_id));
  if (!before.empty()) fmt::print(out, "\nbefore attempt {}: {}\n", number, before);
  print_conditions(*db, attempt_id, number, out);
  print_metrics(*db, attempt_id, number, out);
  print_steps(*db, attempt_id, number, out);
  if (options.steps_csv) {
    write_steps_csv(*db, attempt_id, *options.steps_csv);
    fmt::print(out, "per-step values of attempt {} written to {}\n", number, options.steps_csv->string());
  }
  printed << out.str();
  return 0;
}

}  // namespace

CommandRunner register_show_command(CLI::App& app, const GlobalOptions& global) {
  auto options = std::make_shared<ShowOptions>();
  auto* cmd = app.add_subcommand("show", "one trial: parameters, attempts, conditions, metrics and per-step series");
  cmd->add_option("TRIAL", options->trial, "trial id or a prefix of it (as status prints it)")->required();
  cmd->add_option("--campaign", options->campaign, "campaign id or prefix (default: the one that ran the trial last)");
  cmd->add_option("--attempt", options->attempt, "attempt number to detail (default: the latest)")
      ->check(whole_number_from_to(1, std::numeric_limits<int>::max()));
  cmd->add_option("--steps-csv", options->steps_csv, "also write the attempt's per-step values to this CSV file");
  return [options, &global](std::ostream& out) {
    options->db = global.db;
    return show(*options, out);
  };
}

}  // namespace mt
