#include "store/launch_rows.h"

namespace mt {

void insert_launches(Database& db, std::int64_t attempt_id, std::optional<std::int64_t> stage_id,
                     const std::vector<LaunchRecord>& launches) {
  if (launches.empty()) return;
  auto insert = db.prepare(
      "INSERT INTO launches (attempt_id, stage_id, launch, state, exit_code, signal, error_rank, error_step, "
      "error_reason, duration_s, reached_step, resumed_from_step, lost_steps, recovery_s, log_path) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const LaunchRecord& l : launches) {
    insert.bind(1, attempt_id)
        .bind(2, stage_id)
        .bind(3, l.launch)
        .bind(4, to_string(l.state))
        .bind(5, l.exit_code)
        .bind(6, l.signal)
        .bind(7, l.error_rank)
        .bind(8, l.error_step)
        .bind(9, l.error_reason)
        .bind(10, l.duration_s)
        .bind(11, l.reached_step)
        .bind(12, l.resumed_from_step)
        .bind(13, l.lost_steps)
        .bind(14, l.recovery_s)
        .bind(15, l.log_path)
        .run();
    insert.reset();
  }
}

}  // namespace mt
