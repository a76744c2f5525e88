#include "store/conditions_rows.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "stats.h"
#include "store/campaign_measurement.h"

namespace mt {
namespace {

nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

std::string samples_json(const std::vector<MachineSample>& samples) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : samples) {
    out.push_back({{"t", s.t},
                   {"load1", optional_number(s.load1)},
                   {"cpu_mhz", optional_number(s.cpu_mhz)},
                   {"mem_available_mib", optional_number(s.mem_available_mib)}});
  }
  return out.dump();
}

}  // namespace

void record_conditions(Database& db, std::int64_t attempt_id, const MachineConditions& c, const Verdict& verdict) {
  auto s = db.prepare(
      "INSERT OR REPLACE INTO attempt_conditions (attempt_id, wall_s, cpus, busy_cpu_s, job_cpu_s, runner_cpu_s, "
      "foreign_cpu_pct, steal_pct, context_switches, load1_before, load1_after, load1_max, cpu_mhz_min, cpu_mhz_max, "
      "cpu_pressure_pct, memory_pressure_pct, mem_available_mib_min, calibration_gflops, samples, verdict, reasons, "
      "job_ranks_here, core_round_trip_ns_before, core_round_trip_ns_after) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, attempt_id)
      .bind(2, c.wall_s)
      .bind(3, c.cpus)
      .bind(4, c.busy_cpu_s)
      .bind(5, c.job_cpu_s)
      .bind(6, c.runner_cpu_s)
      .bind(7, c.foreign_cpu_pct)
      .bind(8, c.steal_pct)
      .bind(9, c.context_switches)
      .bind(10, c.load1_before)
      .bind(11, c.load1_after)
      .bind(12, c.load1_max)
      .bind(13, c.cpu_mhz_min)
      .bind(14, c.cpu_mhz_max)
      .bind(15, c.cpu_pressure_pct)
      .bind(16, c.memory_pressure_pct)
      .bind(17, c.mem_available_mib_min)
      .bind(18, c.calibration_gflops)
      .bind(19, samples_json(c.samples))
      .bind(20, verdict.name())
      .bind(21, nlohmann::json(verdict.reasons).dump())
      .bind(22, c.job_ranks_here)
      .bind(23, c.core_round_trip_ns_before)
      .bind(24, c.core_round_trip_ns_after);
  s.run();
}

std::vector<double> campaign_usual_core_round_trips(Database& db, const std::string& campaign_id, int cpus) {
  auto s = db.prepare(
      "SELECT min(coalesce(ac.core_round_trip_ns_before, ac.core_round_trip_ns_after), "
      "coalesce(ac.core_round_trip_ns_after, ac.core_round_trip_ns_before)) FROM attempt_conditions ac "
      "JOIN attempts a ON a.id = ac.attempt_id JOIN trials t ON t.id = a.trial_id "
      "WHERE t.campaign_id = ? AND ac.cpus = ? "
      "AND coalesce(ac.core_round_trip_ns_before, ac.core_round_trip_ns_after) IS NOT NULL ORDER BY a.id");
  s.bind(1, campaign_id).bind(2, cpus);
  std::vector<double> values;
  while (s.step()) values.push_back(s.real(0));
  return values;
}

std::vector<double> campaign_metric_laid_out_alike(Database& db, const std::string& campaign_id,
                                                   std::int64_t attempt_id, const std::string& metric) {
  // threads_per_rank is -1 where an attempt did not record it (a command, an older engine). The
  // program that probed: the engine for every engine workload, a command study's own program (a
  // peer probing through PyTorch) for each such study.
  auto s = db.prepare(
      "SELECT m.value FROM metrics m JOIN attempts a ON a.id = m.attempt_id JOIN trials t ON t.id = a.trial_id "
      "WHERE t.campaign_id = ?1 AND m.name = ?2 "
      "AND t.ranks = (SELECT t2.ranks FROM attempts a2 JOIN trials t2 ON t2.id = a2.trial_id WHERE a2.id = ?3) "
      "AND (CASE WHEN t.workload = 'command' THEN t.study ELSE '' END) = "
      "(SELECT CASE WHEN t2.workload = 'command' THEN t2.study ELSE '' END FROM attempts a2 "
      "JOIN trials t2 ON t2.id = a2.trial_id WHERE a2.id = ?3) "
      "AND coalesce((SELECT value FROM metrics WHERE attempt_id = a.id AND name = 'threads_per_rank'), -1) = "
      "coalesce((SELECT value FROM metrics WHERE attempt_id = ?3 AND name = 'threads_per_rank'), -1) "
      "ORDER BY a.id");
  s.bind(1, campaign_id).bind(2, metric).bind(3, attempt_id);
  std::vector<double> values;
  while (s.step()) values.push_back(s.real(0));
  return values;
}

std::optional<double> campaign_usual_core_round_trip(Database& db, const std::string& campaign_id, int cpus) {
  const std::vector<double> usual = campaign_usual_core_round_trips(db, campaign_id, cpus);
  if (usual.size() < 3) return std::nullopt;
  return median(usual);
}

std::optional<std::string> latest_campaign_reading_cores(Database& db, int cpus) {
  if (db.user_version() < kCoreRoundTripSchemaVersion) return std::nullopt;
  auto s = db.prepare(
      "SELECT t.campaign_id FROM attempt_conditions ac JOIN attempts a ON a.id = ac.attempt_id "
      "JOIN trials t ON t.id = a.trial_id WHERE ac.cpus = ? "
      "AND coalesce(ac.core_round_trip_ns_before, ac.core_round_trip_ns_after) IS NOT NULL "
      "GROUP BY t.campaign_id HAVING count(*) >= 3 ORDER BY max(a.id) DESC LIMIT 1");
  s.bind(1, cpus);
  if (!s.step()) return std::nullopt;
  return s.text(0);
}

std::optional<StoredVerdict> read_verdict(Database& db, std::int64_t attempt_id) {
  if (!has_measurement_schema(db)) return std::nullopt;
  const bool knows_hosts = db.user_version() >= kJobRanksHereSchemaVersion;
  auto s =
      db.prepare(fmt::format("SELECT verdict, reasons, calibration_gflops, {} FROM attempt_conditions "
                             "WHERE attempt_id = ?",
                             knows_hosts ? "job_ranks_here" : "NULL"));
  s.bind(1, attempt_id);
  if (!s.step()) return std::nullopt;
  StoredVerdict v;
  v.verdict = s.text(0);
  const auto reasons = nlohmann::json::parse(s.text(1), nullptr, /*allow_exceptions=*/false);
  if (reasons.is_array()) {
    for (const auto& r : reasons) {
      if (r.is_string()) v.reasons.push_back(r.get<std::string>());
    }
  }
  if (!s.is_null(2)) v.calibration_gflops = s.real(2);
  if (!s.is_null(3)) v.job_ranks_here = int(s.integer(3));
  return v;
}

}  // namespace mt
