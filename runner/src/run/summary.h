#pragma once
// What a campaign's trials did: one row per trial (status) and mean ± std per group of repeats
// (the summary printed at the end of `mtrun run`).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/sqlite_db.h"

namespace mt {

struct TrialRow {
  std::string identity;
  std::string group_key;
  std::string study;
  std::string workload;  // as stored: "chain" for a chain of stages
  std::string config;    // "ranks=2 gradient_sync_mode=last", over the study's axes
  int repeat_index = 0;
  std::optional<std::string> state;        // nullopt: never attempted
  std::optional<std::int64_t> attempt_id;  // of the latest attempt
  int attempts = 0;
  std::optional<int> exit_code;
  std::optional<double> duration_s;
  std::optional<double> tokens_per_sec;
  std::optional<double> step_time_ms;
  // The latest attempt's values of the other metrics the campaign's questions ask about (a command
  // workload's own `metrics:`, a training trial's peak memory), in the order the questions name them.
  std::vector<std::pair<std::string, double>> asked_metrics;
  // The machine during the latest attempt: "quiet" or "disturbed" (attempt_conditions, schema
  // version 6); nullopt where none was recorded.
  std::optional<std::string> verdict;
  bool disturbed() const { return verdict && *verdict == "disturbed"; }
  std::string log_path;
  std::string error_reason;
  // A running attempt whose job waits in the scheduler's queue (queue_note.h): the scheduler's
  // word on it and how long it has waited, e.g. "PENDING Resources, 1m05s".
  std::optional<std::string> queued;
  std::optional<double> running_s;  // a running attempt: seconds since it started
};

// Trials of a campaign in plan order, each with its latest attempt. An attempt recorded as running
// whose runner is gone (lease.h) is shown as interrupted, with why; one whose job waits in the
// scheduler's queue, as queued; the database is not changed.
std::vector<TrialRow> campaign_trials(Database& db, const std::string& campaign_id);

// Whether the campaign averages attempts on a disturbed machine in with the rest (its experiment's
// `conditions: {keep_disturbed: true}`); if not, the summary leaves them out of means, as reports do.
bool keeps_disturbed(Database& db, const std::string& campaign_id);

// What measures attempts on a disturbed machine again, as `run` and `status` say it: "`mtrun rerun
// --disturbed` measures them again", and where they did not wait for a quiet machine, that the
// rerun waits for one only with --wait-quiet, one trial at a time (without it, or with trials in
// parallel, it runs at once and is disturbed again).
std::string rerun_disturbed_advice(bool waited_for_quiet);

// Whether every succeeded trial's latest attempt on a disturbed machine had looked for a quiet one
// first (`run --wait-quiet`, the experiment's `wait_quiet_s`), as recorded with the attempt: trials
// run in parallel do not look, whatever was asked.
bool disturbed_attempts_waited(Database& db, const std::vector<TrialRow>& rows);

// Per (study, configuration): n succeeded of total, then as mean ± std tokens/s and step ms (where
// any trial trains or recorded them) and the other metrics the questions ask about; succeeded
// trials on a disturbed machine are counted apart and left out of the means unless kept.
std::string render_summary(const std::vector<TrialRow>& rows, bool keep_disturbed = false);

// What to run next to look at the results: "mtrun status; mtrun report; mtrun query \"select * from
// training\"", the query naming the view that holds these workloads' rows (training, comm_rows).
std::string where_to_look(const std::vector<TrialRow>& rows);

// One line per trial: identity, study, configuration, repeat, state, attempt, exit code, the
// machine's verdict (where any was recorded), the metrics the summary shows (its values, not mean ±
// std), seconds.
std::string render_trial_table(const std::vector<TrialRow>& rows);

// The stages of the chains' latest attempts: expected, observed, whether each met its expectation.
// Empty when no row is a chain.
std::string render_chain_stages(Database& db, const std::vector<TrialRow>& rows);

// The launches of every job the latest attempts relaunched (restart:): how each ended, the steps it
// had done, where the next resumed, what that recomputed and the time to recover. Empty when none.
std::string render_relaunches(Database& db, const std::vector<TrialRow>& rows);

std::string format_mean_std(const std::vector<double>& xs, int decimals);

}  // namespace mt
