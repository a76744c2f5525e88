#include "run/restarting_job.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "launch/trial_command.h"
#include "checked_int.h"
#include "run/checkpoint_scan.h"

namespace mt {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kBadInputExit = 2;  // the engine's exit code for input it refuses

// Where a launch began: its result's resumed_from_step (none: step 0).
std::optional<int> resumed_from_step(const AttemptOutcome& o) {
  if (!o.result_json) return std::nullopt;
  const json result = json::parse(*o.result_json, nullptr, false);
  if (!result.is_object()) return std::nullopt;
  auto it = result.find("resumed_from_step");
  return it != result.end() ? json_int(*it) : std::nullopt;
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

// Moves the launch's log, result and progress aside so the relaunch writes fresh ones where the
// job's are read; returns where the log went.
std::filesystem::path set_aside(const std::filesystem::path& dir, int number) {
  const auto log = dir / fmt::format("launch-{}.log.txt", number);
  std::error_code ignored;
  std::filesystem::rename(dir / "log.txt", log, ignored);
  std::filesystem::rename(dir / "result.json", dir / fmt::format("launch-{}.result.json", number), ignored);
  std::filesystem::rename(dir / kProgressFileName, dir / fmt::format("launch-{}.progress", number), ignored);
  return log;
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

std::vector<ProgressPoint> read_progress(const std::filesystem::path& file) {
  std::vector<ProgressPoint> points;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line) && !in.eof()) {  // a last line without its newline was cut short
    std::istringstream fields(line);
    long long steps = 0;
    double unix_s = 0;
    if (!(fields >> steps >> unix_s) || steps < 0 || steps > 1'000'000'000LL) break;
    points.push_back({int(steps), unix_s});
  }
  return points;
}

std::optional<double> time_to_recover(int reached, double last_seen_unix_s, const std::vector<ProgressPoint>& next) {
  for (const ProgressPoint& p : next) {
    if (p.steps >= reached) return std::max(0.0, p.unix_s - last_seen_unix_s);
  }
  return std::nullopt;
}

AttemptOutcome run_restarting(const CampaignRun& run, const Trial& job, const LaunchCommand& first,
                              const std::filesystem::path& dir, const std::string& job_name, const LaunchOnce& launch) {
  AttemptOutcome outcome = launch(first);
  if (!job.restart.enabled()) return outcome;
  std::vector<LaunchRecord> launches;
  double total_s = outcome.duration_s;
  Trial current = job;
  std::optional<int> planned_resume;       // where a relaunch that left no result was to resume
  std::optional<ProgressPoint> last_seen;  // the previous launch's last progress
  for (int number = 1;; ++number) {
    const std::vector<ProgressPoint> progress = read_progress(dir / kProgressFileName);
    if (!launches.empty() && last_seen)
      launches.back().recovery_s = time_to_recover(last_seen->steps, last_seen->unix_s, progress);
    LaunchRecord record = record_of(outcome, number);
    if (!progress.empty()) record.reached_step = progress.back().steps;
    last_seen = progress.empty() ? std::nullopt : std::optional<ProgressPoint>(progress.back());
    record.resumed_from_step = outcome.result_json ? resumed_from_step(outcome) : planned_resume;
    const bool again = number <= job.restart.max && restartable(outcome) && !(run.stop && run.stop->load());
    if (!again) {
      record.log_path = (dir / "log.txt").string();
      launches.push_back(std::move(record));
      break;
    }
    record.log_path = set_aside(dir, number).string();
    current = relaunch_of(current, record.reached_step);
    launches.push_back(std::move(record));
    planned_resume = scan_checkpoints(dir / current.param(kCheckpointDirParam)).latest_step;  // relative: to dir
    const auto ended = Clock::now();
    const LaunchCommand next = build_trial_command(current, run.context, dir / "result.json", job_name);
    const double gap_s = std::chrono::duration<double>(Clock::now() - ended).count();
    outcome = launch(next);
    total_s += gap_s + outcome.duration_s;
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
