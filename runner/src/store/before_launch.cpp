#include "store/before_launch.h"

#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace mt {

BeforeLaunch read_before_launch(Database& db, std::int64_t attempt_id) {
  BeforeLaunch before;
  if (db.user_version() < kBeforeLaunchSchemaVersion) return before;
  auto s = db.prepare("SELECT settle_s, quiet_wait_s, quiet_found FROM attempts WHERE id = ?");
  s.bind(1, attempt_id);
  if (!s.step()) return before;
  if (!s.is_null(0)) before.settle_s = s.real(0);
  if (!s.is_null(1)) before.quiet_wait_s = s.real(1);
  if (!s.is_null(2)) before.quiet_found = s.text(2);
  if (db.user_version() < kQuietWhereSchemaVersion) return before;
  auto where = db.prepare("SELECT quiet_where FROM attempts WHERE id = ?");
  where.bind(1, attempt_id);
  if (where.step() && !where.is_null(0)) before.quiet_where = where.text(0);
  return before;
}

std::string quiet_where_words(const std::string& quiet_where) {
  if (quiet_where == "runner_host") return "mtrun's host";
  if (quiet_where == "allocation_nodes") return "the allocation's nodes";
  if (quiet_where == "hostfile_hosts") return "the hostfile's hosts";
  if (quiet_where == "job_nodes") return "the job's own nodes";
  return "";
}

namespace {

std::string look_outcome(const std::string& quiet_found) {
  if (quiet_found.empty()) return "not measurable here";
  return quiet_found == "busy" ? "still busy" : quiet_found;
}

}  // namespace

std::string describe_before_launch(const BeforeLaunch& before) {
  std::vector<std::string> parts;
  if (before.settle_s) parts.push_back(fmt::format("settled {:.1f} s", *before.settle_s));
  if (before.quiet_wait_s) {
    const std::string where = quiet_where_words(before.quiet_where);
    parts.push_back(fmt::format("looked for a quiet machine{} for {:.1f} s: {}", where.empty() ? "" : " on " + where,
                                *before.quiet_wait_s, look_outcome(before.quiet_found)));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace mt
