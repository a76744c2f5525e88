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
  return before;
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
    parts.push_back(fmt::format("looked for a quiet machine for {:.1f} s: {}", *before.quiet_wait_s,
                                look_outcome(before.quiet_found)));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace mt
