#pragma once
// What mtrun did just before launching an attempt, recorded with it (schema version 11,
// docs/measurement.md): nothing set where it did neither (no --settle or --wait-quiet; trials run in
// parallel), so an attempt's row tells settled trials from back-to-back ones.
#include <cstdint>
#include <optional>
#include <string>

#include "store/sqlite_db.h"

namespace mt {

// The schema versions that added the columns, and where the look was taken.
inline constexpr int kBeforeLaunchSchemaVersion = 11;
inline constexpr int kQuietWhereSchemaVersion = 13;

struct BeforeLaunch {
  std::optional<double> settle_s;      // waited with nothing of ours running, in seconds
  std::optional<double> quiet_wait_s;  // spent looking for a quiet machine, the first look included
  std::string quiet_found;             // what the last look found: "quiet", "busy", "" when not known
  // Where the look was taken: "runner_host", "allocation_nodes", "hostfile_hosts", "job_nodes" (as
  // the schema names them); "" where no look was taken or it was not recorded (before schema
  // version 13).
  std::string quiet_where;

  bool anything() const { return settle_s || quiet_wait_s; }
};

// The attempt's record; nothing set in databases before schema version 11.
BeforeLaunch read_before_launch(Database& db, std::int64_t attempt_id);

// "mtrun's host", "the allocation's nodes", "the hostfile's hosts", "the job's own nodes" for a
// recorded quiet_where; "" for none.
std::string quiet_where_words(const std::string& quiet_where);

// "settled 10.0 s; looked for a quiet machine on the allocation's nodes for 1.0 s: quiet", "" when
// nothing was done.
std::string describe_before_launch(const BeforeLaunch& before);

}  // namespace mt
