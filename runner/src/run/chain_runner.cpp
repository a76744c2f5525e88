#include "run/chain_runner.h"

#include <fstream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "run/restarting_job.h"
#include "run/stage_verdict.h"
#include "store/result_ingest.h"
#include "store/sqlite_db.h"

namespace mt {
namespace {

AttemptOutcome ended(AttemptState state, const std::string& reason) {
  AttemptOutcome o;
  o.state = state;
  o.error_reason = reason;
  return o;
}

bool says_where_it_ran(const std::optional<std::string>& result_json) {
  return result_json && result_json->find("\"environment\"") != std::string::npos;
}

// Launches one prepared stage (again, under its study's restart policy) and classifies how it
// ended; never throws but for the database.
AttemptOutcome launch_stage(const CampaignRun& run, const StageLaunch& launch, const std::filesystem::path& dir,
                            const std::string& job_name) {
  const auto result_file = dir / "result.json";
  const auto log_file = dir / "log.txt";
  try {
    std::filesystem::create_directories(dir);
    return run_restarting(run, launch.trial, launch.command, dir, job_name, [&](const LaunchCommand& command) {
      std::filesystem::remove(result_file);  // never judge a stale result
      ProcessOutcome process = run_job(run, command, dir, log_file, launch.trial.timeout_s);
      return classify_attempt(process, result_file, log_file, launch.trial);
    });
  } catch (const SqliteError&) {
    throw;
  } catch (const std::exception& e) {
    return ended(AttemptState::Failed, fmt::format("mtrun could not run the stage or read its result: {}", e.what()));
  }
}

}  // namespace

ChainOutcome run_chain(Store& store, const CampaignRun& run, std::int64_t attempt, const Trial& trial,
                       const ChainDirs& dirs, const std::filesystem::path& log_file, const std::string& job_name) {
  ChainOutcome chain;
  AttemptOutcome& verdict = chain.outcome;
  verdict.state = AttemptState::Succeeded;
  double seconds = 0;
  std::filesystem::create_directories(dirs.work_dir());
  std::ofstream log(log_file, std::ios::app);
  for (std::size_t i = 0; i < trial.stages.size(); ++i) {
    const Stage& stage = trial.stages[i];
    if (run.stop && run.stop->load()) {
      verdict = ended(AttemptState::Interrupted,
                      fmt::format("runner was interrupted before stage {} '{}'", i + 1, stage.name));
      break;
    }
    const auto dir = dirs.stage_dir(i, stage);
    StageLaunch launch;
    std::string command_text, unbuildable;
    const std::string stage_job = fmt::format("{}-{}", job_name, i + 1);
    try {
      launch = prepare_stage(trial, i, dirs, run.context, stage_job);
      command_text = command_line(launch.command);
    } catch (const std::exception& e) {  // a stored trial whose templates no longer expand
      launch.expect = stage.expect;
      unbuildable = e.what();
    }
    const std::int64_t row = store.begin_stage(
        attempt, {int(i + 1), stage.name, stage.workload, launch.expect.describe(), expectation_json(launch.expect),
                  command_text, dir.string(), (dir / "log.txt").string()});
    AttemptOutcome outcome =
        unbuildable.empty() ? launch_stage(run, launch, dir, stage_job)
                            : ended(AttemptState::LaunchFailed, "the stage's command cannot be built: " + unbuildable);
    const StageVerdict v = judge_stage(launch.expect, outcome, dir / "log.txt");
    store.finish_stage(row, outcome, v);
    seconds += outcome.duration_s;
    if (says_where_it_ran(outcome.result_json)) chain.provenance_result = outcome.result_json;
    fmt::print(log, "stage {} {}: {} ({})\n  expected {}\n  observed {}\n  log {}\n", i + 1, stage.name,
               v.met ? "as expected" : "NOT as expected", to_string(outcome.state), launch.expect.describe(),
               v.observed, (dir / "log.txt").string());
    log.flush();
    if (outcome.state == AttemptState::Interrupted) {
      verdict = ended(AttemptState::Interrupted,
                      fmt::format("runner was interrupted during stage {} '{}'", i + 1, stage.name));
      break;
    }
    if (!v.met) {
      verdict = ended(AttemptState::Failed, chain_failure_reason(i, stage, v));
      break;
    }
  }
  verdict.duration_s = seconds;
  return chain;
}

}  // namespace mt
