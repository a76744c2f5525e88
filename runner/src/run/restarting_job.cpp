#include "run/restarting_job.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "launch/trial_command.h"
#include "run/checkpoint_scan.h"

namespace mt {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kBadInputExit = 2;  // the engine's exit code for input it refuses

// What a launch's result says about its steps: where it began and each step's time (the slowest
// rank's), so the work a relaunch redid can be timed.
struct ResultSteps {
  std::optional<int> resumed_from_step;
  int first_step = 0;
  std::vector<double> step_s;  // step first_step + i
};

ResultSteps result_steps(const AttemptOutcome& o) {
  ResultSteps r;
  if (!o.result_json) return r;
  const json result = json::parse(*o.result_json, nullptr, false);
  if (!result.is_object()) return r;
  if (auto it = result.find("resumed_from_step"); it != result.end() && it->is_number_integer())
    r.resumed_from_step = it->get<int>();
  const json per_step = result.value("per_step", json::object());
  if (!per_step.is_object()) return r;
  if (auto it = per_step.find("first_step"); it != per_step.end() && it->is_number_integer())
    r.first_step = it->get<int>();
  const json ranks = per_step.value("step_time_ms", json::array());
  if (!ranks.is_array()) return r;
  for (const auto& rank : ranks) {
    if (!rank.is_array()) continue;
    for (std::size_t i = 0; i < rank.size(); ++i) {
      if (!rank[i].is_number()) continue;
      if (r.step_s.size() <= i) r.step_s.resize(i + 1, 0.0);
      r.step_s[i] = std::max(r.step_s[i], rank[i].get<double>() / 1000.0);
    }
  }
  return r;
}

LaunchRecord record_of(const AttemptOutcome& o, int number) {
  LaunchRecord l;
  l.launch = number;
  l.state = o.state;
  l.exit_code = o.exit_code;
  l.signal = o.signal;
  l.error_rank = o.error_rank;
  l.error_step = o.error_step;
  l.error_reason = o.error_reason;
  l.duration_s = o.duration_s;
  return l;
}

// Moves the launch's log and result aside so the relaunch writes fresh ones where the job's are
// read, and drops its progress; returns where the log went.
std::filesystem::path set_aside(const std::filesystem::path& dir, int number) {
  const auto log = dir / fmt::format("launch-{}.log.txt", number);
  std::error_code ignored;
  std::filesystem::rename(dir / "log.txt", log, ignored);
  std::filesystem::rename(dir / "result.json", dir / fmt::format("launch-{}.result.json", number), ignored);
  std::filesystem::remove(dir / kProgressFileName, ignored);  // read already; never the next launch's
  return log;
}

// How long `previous` took to recover from, once `next` (its relaunch) ended with a result: the
// time until it was back where `previous` had got to. Unknown when the relaunch left no step times
// (it died too).
void account_recovery(LaunchRecord& previous, const AttemptOutcome& next, double gap_s) {
  const ResultSteps steps = result_steps(next);
  if (!previous.reached_step || steps.step_s.empty()) return;
  double all_steps_s = 0, redone_s = 0;
  for (std::size_t i = 0; i < steps.step_s.size(); ++i) {
    all_steps_s += steps.step_s[i];
    if (steps.first_step + int(i) < *previous.reached_step) redone_s += steps.step_s[i];
  }
  const double outside_steps_s = std::max(0.0, next.duration_s - all_steps_s);  // start-up, load, shutdown
  previous.recovery_s = gap_s + outside_steps_s + redone_s;
}

}  // namespace

bool restartable(const AttemptOutcome& o) {
  switch (o.state) {
    case AttemptState::Crashed:
    case AttemptState::TimedOut: return true;
    case AttemptState::Failed: return o.exit_code != kBadInputExit;
    default: return false;
  }
}

std::optional<int> read_progress(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string text;
  if (!in || !std::getline(in, text)) return std::nullopt;
  char* end = nullptr;
  const long steps = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || steps < 0 || steps > 1'000'000'000L) return std::nullopt;
  return int(steps);
}

AttemptOutcome run_restarting(const CampaignRun& run, const Trial& job, const LaunchCommand& first,
                              const std::filesystem::path& dir, const std::string& job_name, const LaunchOnce& launch) {
  AttemptOutcome outcome = launch(first);
  if (!job.restart.enabled()) return outcome;
  std::vector<LaunchRecord> launches;
  double total_s = outcome.duration_s;
  Trial current = job;
  std::optional<int> planned_resume;  // where a relaunch without a result was to resume
  for (int number = 1;; ++number) {
    LaunchRecord record = record_of(outcome, number);
    record.reached_step = read_progress(dir / kProgressFileName);
    record.resumed_from_step = result_steps(outcome).resumed_from_step;
    if (!record.resumed_from_step && !outcome.result_json) record.resumed_from_step = planned_resume;
    const bool again = number <= job.restart.max && restartable(outcome) && !(run.stop && run.stop->load());
    if (!again) {
      record.log_path = (dir / "log.txt").string();
      launches.push_back(std::move(record));
      break;
    }
    record.log_path = set_aside(dir, number).string();
    current = relaunch_of(current, record.reached_step);
    launches.push_back(std::move(record));
    planned_resume = scan_checkpoints(current.param(kCheckpointDirParam)).latest_step;
    const auto ended = Clock::now();
    const LaunchCommand next = build_trial_command(current, run.context, dir / "result.json", job_name);
    const double gap_s = std::chrono::duration<double>(Clock::now() - ended).count();
    outcome = launch(next);
    total_s += gap_s + outcome.duration_s;
    account_recovery(launches.back(), outcome, gap_s);
  }
  // The work each relaunch redid: from where it resumed up to where the launch before it got.
  for (std::size_t k = 0; k + 1 < launches.size(); ++k) {
    if (launches[k].reached_step)
      launches[k].lost_steps = std::max(0, *launches[k].reached_step - launches[k + 1].resumed_from_step.value_or(0));
  }
  outcome.duration_s = total_s;
  outcome.launches = std::move(launches);
  return outcome;
}

}  // namespace mt
