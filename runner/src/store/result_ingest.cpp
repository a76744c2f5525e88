#include "store/result_ingest.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <regex>
#include <sstream>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checked_int.h"
#include "store/bounded_json.h"
#include "store/log_scan.h"
#include "store/result_rows.h"

namespace mt {
namespace {

using json = nlohmann::json;

constexpr std::size_t kReasonLength = 1000;  // of an error reason taken from a result file
constexpr double kRegexBudgetSeconds = 30;   // scanning the output for one metric

void add_metric(std::vector<MetricValue>& out, std::string name, double value) {
  if (std::isfinite(value)) out.push_back({std::move(name), value});  // see README: non-finite values
}

// Recursion is bounded: the document's nesting was checked when it was read.
void flatten(const json& node, const std::string& prefix, std::vector<MetricValue>& out) {
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string name = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it->is_number()) {
      add_metric(out, name, it->get<double>());
    } else if (it->is_object() && it.key() != "per_step") {
      flatten(*it, name, out);
    }
  }
}

std::vector<StepValue> step_series(const json& result) {
  std::vector<StepValue> out;
  auto add = [&](const std::string& name, int rank, std::size_t step, const json& v) {
    if (v.is_number() && std::isfinite(v.get<double>()) && step <= std::size_t(INT_MAX)) {
      out.push_back({name, rank, int(step), v.get<double>()});
    }
  };
  if (!result.contains("per_step") || !result["per_step"].is_object()) return out;
  for (const auto& [name, series] : result["per_step"].items()) {
    if (!series.is_array()) continue;
    for (size_t i = 0; i < series.size() && i <= std::size_t(INT_MAX); ++i) {
      if (series[i].is_array()) {  // [rank][step]
        for (size_t step = 0; step < series[i].size(); ++step) add(name, int(i), step, series[i][step]);
      } else {
        add(name, -1, i, series[i]);
      }
    }
  }
  return out;
}

// The engine's own account of a failure: error.rank, error.step, error.reason.
void read_error(const json& result, AttemptOutcome& o) {
  if (!result.contains("error") || !result["error"].is_object()) return;
  const json& e = result["error"];
  if (e.contains("rank")) o.error_rank = json_int(e["rank"]);
  if (e.contains("step")) o.error_step = json_int(e["step"]);
  if (e.contains("reason") && e["reason"].is_string())
    o.error_reason = e["reason"].get<std::string>().substr(0, kReasonLength);
}

// The first capture group of `rule.regex` on any line of the log, as a number; or why not.
std::variant<double, std::string> regex_metric(const MetricRule& rule, const std::filesystem::path& log_file) {
  const std::regex pattern(rule.regex);
  const auto start = std::chrono::steady_clock::now();
  std::optional<std::string> text;
  bool out_of_time = false;
  scan_log(log_file, [&](std::string_view line) {
    std::match_results<std::string_view::const_iterator> m;
    if (std::regex_search(line.begin(), line.end(), m, pattern) && m.size() > 1) {
      text = m[1].str();
      return false;
    }
    out_of_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > kRegexBudgetSeconds;
    return !out_of_time;
  });
  if (out_of_time) {
    return fmt::format("metric '{}': gave up after {:.0f} s matching regex '{}' against the output", rule.name,
                       kRegexBudgetSeconds, rule.regex);
  }
  if (!text) return fmt::format("metric '{}': no number matched regex '{}' in the output", rule.name, rule.regex);
  char* end = nullptr;
  const double v = std::strtod(text->c_str(), &end);
  if (text->empty() || *end != '\0') {
    return fmt::format("metric '{}': no number matched regex '{}' in the output", rule.name, rule.regex);
  }
  if (!std::isfinite(v)) return fmt::format("metric '{}': '{}' in the output is not a finite number", rule.name, *text);
  return v;
}

// The number at the dotted path `rule.json_path` of the result file; or why not.
std::variant<double, std::string> json_metric(const MetricRule& rule, const json& result) {
  const json* node = result.is_object() ? &result : nullptr;
  std::istringstream path(rule.json_path);
  std::string key;
  while (node && std::getline(path, key, '.'))
    node = node->is_object() && node->contains(key) ? &(*node)[key] : nullptr;
  if (node && node->is_null()) {
    return fmt::format("metric '{}': the value at '{}' in the result file is null or not a finite number", rule.name,
                       rule.json_path);
  }
  if (!node || !node->is_number()) {
    return fmt::format("metric '{}': no number at '{}' in the result file", rule.name, rule.json_path);
  }
  return node->get<double>();
}

// Applies a command workload's metric rules; returns "" or why a declared metric is missing.
std::string extract_command_metrics(const std::vector<MetricRule>& rules, const std::filesystem::path& log_file,
                                    const json& result, std::vector<MetricValue>& metrics) {
  for (const auto& rule : rules) {
    auto value = rule.regex.empty() ? json_metric(rule, result) : regex_metric(rule, log_file);
    if (auto* problem = std::get_if<std::string>(&value)) return *problem;
    metrics.erase(std::remove_if(metrics.begin(), metrics.end(), [&](const auto& m) { return m.name == rule.name; }),
                  metrics.end());
    metrics.push_back({rule.name, std::get<double>(value)});
  }
  return "";
}

}  // namespace

std::vector<MetricValue> flatten_metrics(const std::string& result_json) {
  std::vector<MetricValue> out;
  UntrustedJson doc = parse_untrusted_json(result_json);
  if (doc.document.is_object()) flatten(doc.document, "", out);
  return out;
}

namespace {

// What a stop left: `done` unless the launcher's cleanup could not make sure the job is gone.
std::string after_stop(const ProcessOutcome& process, const char* done) {
  if (process.cleanup_problem.empty()) return done;
  return "the launcher's processes were killed, but " + process.cleanup_problem;
}

// What ran out: the trial's own time, counted from its start, or its time in the scheduler's queue.
std::string timeout_reason(const ProcessOutcome& process, const Trial& trial) {
  if (process.stopped_in_queue) {
    return fmt::format(
        "trial was still queued after {:.0f} s ({}), past the launcher's queue_timeout_s; it never "
        "started",
        process.queued_s, process.queue_state);
  }
  std::string reason = fmt::format("trial exceeded its {} s timeout (timeout_s)", trial.timeout_s);
  if (process.queued_s > 0)
    reason += fmt::format(", counted from its start after {:.0f} s in the queue", process.queued_s);
  return reason;
}

// Why a job failed, from its log; said in words where the log holds nothing to read one from (a
// launcher that failed without a word), so a reason is never blank.
std::string failure_reason(const std::filesystem::path& log_file) {
  std::string reason = reason_from_log(log_file);
  return reason.empty() ? "its log holds no message from the job or its launcher" : reason;
}

// "Segmentation fault" for 11: in English whatever the locale, as logs are read (strsignal
// translates, and is not safe across threads).
std::string signal_description(int signal) {
  const char* described = ::sigdescr_np(signal);
  return described ? described : fmt::format("signal {}", signal);
}

// The job's guard could not execute the program (not found, not executable): it says so as the
// log's last line and exits 127, as a shell does. Nothing ran, so the attempt did not launch rather
// than fail. (The last line only: a program that ran and exits 127 may print anything before.)
std::optional<std::string> program_not_started(const ProcessOutcome& process, const std::filesystem::path& log) {
  if (process.exit_code != 127) return std::nullopt;
  constexpr std::string_view kGuardSays = "mtrun: cannot execute ";
  std::string last;
  scan_log(log, [&](std::string_view line) {
    if (!line.empty()) last = line;
    return true;
  });
  if (last.rfind(kGuardSays, 0) != 0) return std::nullopt;
  return last.substr(std::string_view("mtrun: ").size());
}

AttemptOutcome classify(const ProcessOutcome& process, const std::filesystem::path& result_file,
                        const std::filesystem::path& log_file, const Trial& trial) {
  AttemptOutcome o;
  o.duration_s = process.duration_s;
  json result;
  std::string rejected;  // why a result file that exists was refused
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(result_file, ec))) {
    UntrustedJson read = read_untrusted_json(result_file);
    rejected = read.problem;
    if (read.document.is_object()) {
      result = std::move(read.document);
      o.result_json = std::move(read.text);
      flatten(result, "", o.metrics);
      o.steps = step_series(result);
      ResultRows rows = read_result_rows(result);
      if (rows.problem.empty()) o.rows = std::move(rows.rows);
      else rejected = std::move(rows.problem);
      read_error(result, o);
    }
  }
  switch (process.end) {
    case ProcessEnd::LaunchFailed:
      o.state = AttemptState::LaunchFailed;
      o.error_reason = process.launch_error;
      return o;
    case ProcessEnd::TimedOut:
      o.state = AttemptState::TimedOut;
      o.error_reason =
          timeout_reason(process, trial) + "; " +
          after_stop(process, process.stopped_in_queue ? "its job was cancelled" : "every rank was killed");
      return o;
    case ProcessEnd::Interrupted:
      o.state = AttemptState::Interrupted;
      o.error_reason = "runner was interrupted; " + after_stop(process, "the job was terminated");
      return o;
    case ProcessEnd::Signaled:
      o.state = AttemptState::Crashed;
      o.signal = process.signal;
      // Launched directly, the process that died is the trial's own program, not a launcher.
      o.error_reason = fmt::format("{} was killed by signal {} ({})",
                                   trial.command_uses_launcher ? "the launcher" : "the program (launch: direct)",
                                   process.signal, signal_description(process.signal));
      return o;
    case ProcessEnd::Exited: break;
  }
  o.exit_code = process.exit_code;
  if (auto died = find_rank_signal(log_file)) {
    o.state = AttemptState::Crashed;
    o.error_rank = died->rank;
    o.signal = died->signal;
    // The node matters once ranks span hosts: a machine that failed, not only a rank.
    o.error_reason = fmt::format("rank {} on {} died of signal {}", died->rank, died->node, died->signal);
    return o;
  }
  if (!rejected.empty()) {
    o.state = AttemptState::Failed;
    o.error_reason = fmt::format("result file {} rejected: {}", result_file.filename().string(), rejected);
    return o;
  }
  if (auto why = program_not_started(process, log_file)) {
    o.state = AttemptState::LaunchFailed;
    o.error_reason = *why;
    return o;
  }
  if (trial.workload == "command") {
    if (process.exit_code == 0) {
      std::string problem = extract_command_metrics(trial.metrics, log_file, result, o.metrics);
      o.state = problem.empty() ? AttemptState::Succeeded : AttemptState::Failed;
      if (!problem.empty()) o.error_reason = problem;
    } else {
      o.state = AttemptState::Failed;
      o.error_reason = failure_reason(log_file);
    }
    return o;
  }
  bool result_ok = result.is_object() && result.contains("status") && result["status"] == "ok";
  if (process.exit_code == 0 && result_ok) {
    o.state = AttemptState::Succeeded;
    return o;
  }
  o.state = AttemptState::Failed;
  if (!o.error_reason) {
    o.error_reason = process.exit_code == 0 ? std::string("engine exited 0 but wrote no valid result file")
                                            : failure_reason(log_file);
  }
  return o;
}

}  // namespace

AttemptOutcome classify_attempt(const ProcessOutcome& process, const std::filesystem::path& result_file,
                                const std::filesystem::path& log_file, const Trial& trial) {
  AttemptOutcome o = classify(process, result_file, log_file, trial);
  // A reason in the engine's words names the failing rank even when nothing else recorded it.
  if (!o.error_rank && o.error_reason) o.error_rank = rank_named_in(*o.error_reason);
  return o;
}

}  // namespace mt
