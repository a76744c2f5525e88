#include "store/stage_rows.h"

namespace mt {

std::vector<StageRow> attempt_stages(Database& db, std::int64_t attempt_id) {
  std::vector<StageRow> rows;
  if (!db.has_table("stages")) return rows;
  auto s = db.prepare(
      "SELECT position, name, workload, expected, state, coalesce(observed, ''), met, "
      "coalesce(mismatch, ''), duration_s, log_path, coalesce(result_json, '') "
      "FROM stages WHERE attempt_id = ? ORDER BY position");
  s.bind(1, attempt_id);
  while (s.step()) {
    StageRow r;
    r.position = int(s.integer(0));
    r.name = s.text(1);
    r.workload = s.text(2);
    r.expected = s.text(3);
    r.state = s.text(4);
    r.observed = s.text(5);
    if (!s.is_null(6)) r.met = s.integer(6) != 0;
    r.mismatch = s.text(7);
    if (!s.is_null(8)) r.duration_s = s.real(8);
    r.log_path = s.text(9);
    r.result_json = s.text(10);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace mt
