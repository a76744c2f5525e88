#include "store/launch_rows.h"

#include <algorithm>

#include <fmt/format.h>

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

std::vector<std::vector<const LaunchRow*>> relaunched_jobs(const std::vector<LaunchRow>& launches) {
  std::vector<std::vector<const LaunchRow*>> jobs;
  for (const LaunchRow& l : launches) {
    if (l.launch == 1) jobs.emplace_back();
    if (!jobs.empty()) jobs.back().push_back(&l);
  }
  jobs.erase(std::remove_if(jobs.begin(), jobs.end(), [](const auto& job) { return job.size() < 2; }), jobs.end());
  return jobs;
}

std::string launch_ending(const LaunchRow& l) {
  std::string text = l.state;
  if (l.error_rank) text += fmt::format(" on rank {}", *l.error_rank);
  if (l.signal) {
    text += fmt::format(" (signal {})", *l.signal);
  } else if (l.exit_code && *l.exit_code != 0) {
    text += fmt::format(", exit {}", *l.exit_code);
  }
  return text;
}

std::vector<LaunchRow> attempt_launches(Database& db, std::int64_t attempt_id) {
  std::vector<LaunchRow> rows;
  if (!db.has_table("launches")) return rows;
  auto s = db.prepare(
      "SELECT coalesce(st.name, ''), coalesce(st.position, 0), l.launch, l.state, l.exit_code, l.signal, "
      "l.error_rank, l.reached_step, l.resumed_from_step, l.lost_steps, l.recovery_s, l.duration_s "
      "FROM launches l LEFT JOIN stages st ON st.id = l.stage_id WHERE l.attempt_id = ? "
      "ORDER BY coalesce(st.position, 0), l.launch");
  s.bind(1, attempt_id);
  auto optional_int = [&](int column) {
    return s.is_null(column) ? std::nullopt : std::optional<int>(int(s.integer(column)));
  };
  while (s.step()) {
    LaunchRow r;
    r.stage = s.text(0);
    r.stage_position = int(s.integer(1));
    r.launch = int(s.integer(2));
    r.state = s.text(3);
    r.exit_code = optional_int(4);
    r.signal = optional_int(5);
    r.error_rank = optional_int(6);
    r.reached_step = optional_int(7);
    r.resumed_from_step = optional_int(8);
    r.lost_steps = optional_int(9);
    if (!s.is_null(10)) r.recovery_s = s.real(10);
    r.duration_s = s.real(11);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace mt
