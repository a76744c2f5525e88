#pragma once
// A restarted job's launches (AttemptOutcome::launches) as rows of table launches: written inside
// the caller's transaction, so an attempt or stage is finished together with its launches, and
// read back for reports.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/sqlite_db.h"
#include "store/store.h"

namespace mt {

void insert_launches(Database& db, std::int64_t attempt_id, std::optional<std::int64_t> stage_id,
                     const std::vector<LaunchRecord>& launches);

// A launch as read back.
struct LaunchRow {
  std::string stage;       // the chain's stage it ran, "" for the trial's own job
  int stage_position = 0;  // 0 for the trial's own job
  int launch = 1;
  std::string state;
  std::optional<int> exit_code, signal, error_rank, reached_step, resumed_from_step, lost_steps;
  std::optional<double> recovery_s;
  double duration_s = 0;
};

// The launches of an attempt in the order they ran (by stage, then launch); none before schema
// version 9 or for an attempt without restarts.
std::vector<LaunchRow> attempt_launches(Database& db, std::int64_t attempt_id);

// The jobs among `launches` (in attempt_launches' order) that were relaunched at least once, each
// as its launches in order.
std::vector<std::vector<const LaunchRow*>> relaunched_jobs(const std::vector<LaunchRow>& launches);

// How a launch ended, in words: "crashed on rank 1 (signal 9)", "failed, exit 1", "succeeded".
std::string launch_ending(const LaunchRow& launch);

}  // namespace mt
