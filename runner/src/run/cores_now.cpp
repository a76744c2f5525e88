#include "run/cores_now.h"

#include <memory>
#include <vector>

#include <fmt/format.h>

#include "launch/core_round_trip.h"
#include "launch/machine_sampler.h"
#include "store/campaign_measurement.h"
#include "store/conditions_rows.h"
#include "store/store_reader.h"

namespace mt {

bool CoresNow::far_apart() const {
  return round_trip_ns && usual_ns && *round_trip_ns > *usual_ns * (1 + max_rise_pct / 100);
}

std::string CoresNow::describe() const {
  if (!round_trip_ns) {
    return cpus < 2 ? "one CPU: no round trip between cores to time"
                    : "the round trip between CPUs could not be timed: no CPU was free long enough";
  }
  const std::string took = fmt::format("a cache line's round trip between CPUs took {:.0f} ns", *round_trip_ns);
  if (!usual_ns) {
    return fmt::format(
        "{} (no campaign in the database has read the cores of {} CPUs on three attempts: nothing to "
        "judge it by)",
        took, cpus);
  }
  return fmt::format("{}, against the usual {:.0f} ns of campaign {} ({} CPUs)", took, *usual_ns, campaign_id, cpus);
}

std::string CoresNow::far_apart_reason() const {
  return fmt::format(
      "cores far apart: round trip {:.0f} ns against the usual {:.0f} ns of campaign {} (at most {:g} % "
      "above it)",
      round_trip_ns.value_or(0), usual_ns.value_or(0), campaign_id, max_rise_pct);
}

CoresNow read_cores_now(const std::filesystem::path& db) {
  CoresNow now;
  const std::vector<int> cpus = allowed_cpus();
  const MachineSnapshot snapshot = read_snapshot();
  now.cpus = snapshot.stat ? snapshot.stat->cpus : int(cpus.size());  // as attempts record them
  // The database first: one it cannot read throws before the cores are timed.
  std::error_code ec;
  if (std::filesystem::exists(db, ec)) {
    const std::unique_ptr<Database> store = open_store_read_only(db);
    if (const std::optional<std::string> campaign = latest_campaign_reading_cores(*store, now.cpus)) {
      now.campaign_id = *campaign;
      now.usual_ns = campaign_usual_core_round_trip(*store, *campaign, now.cpus);
      const auto recorded = recorded_conditions(read_campaign_measurement(*store, *campaign).measurement);
      now.max_rise_pct = recorded.value_or(ConditionsThresholds{}).max_core_round_trip_rise_pct;
    }
  }
  now.round_trip_ns = core_round_trip_ns(cpus);
  return now;
}

}  // namespace mt
