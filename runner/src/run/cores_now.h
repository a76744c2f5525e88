#pragma once
// This machine's cores now, as mtrun reads them before and after every attempt (launch/core_round_trip.h),
// judged against the usual of the latest campaign in the database that read them on as many CPUs,
// by that campaign's own threshold: what `mtrun look` and `mtrun doctor` say before a campaign starts.
// Without such a campaign the reading stands alone (a VM's cores read ~50-150 ns, ~500 while its
// host holds them far apart), as the rule is relative to a campaign's usual.
#include <filesystem>
#include <optional>
#include <string>

namespace mt {

struct CoresNow {
  std::optional<double> round_trip_ns;  // none: one CPU, or the cores could not be timed (every one busy)
  int cpus = 0;
  std::string campaign_id;  // whose usual; empty where no campaign has read the cores on as many CPUs
  std::optional<double> usual_ns;
  double max_rise_pct = 0;  // that campaign's max_core_round_trip_rise_pct

  bool far_apart() const;
  // "a cache line's round trip between CPUs took 105 ns, against the usual 110 ns of campaign
  // 5522a0aa3b25 (2 CPUs)", or why there is no reading.
  std::string describe() const;
  // "cores far apart: round trip 512 ns against the usual 110 ns of campaign 5522a0aa3b25 (at most
  // 200 % above it)"
  std::string far_apart_reason() const;
};

// `db` may not exist, or be older than the core readings: then no campaign's usual judges the reading.
// The database is only read; one that is not an mtrun database throws RunnerError before the cores
// are timed.
CoresNow read_cores_now(const std::filesystem::path& db);

}  // namespace mt
