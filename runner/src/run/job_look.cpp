#include "run/job_look.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "store/bounded_json.h"

namespace mt {

bool job_looks_first(const LookPlace& place, double wait_quiet_s, int parallel) {
  return place.where == LookPlace::Where::InJob && wait_quiet_s > 0 && parallel <= 1;
}

// Numbers as the shortest text that reads back to the same value: the job judges with exactly the
// campaign's thresholds.
std::vector<std::string> job_look_command(const std::filesystem::path& mtrun, double wait_s,
                                          const ConditionsThresholds& thresholds, const std::filesystem::path& record) {
  return {mtrun.string(),
          "look",
          "--allocation",
          "--wait",
          fmt::format("{}", wait_s),
          "--record",
          record.string(),
          "--max-foreign-cpu-pct",
          fmt::format("{}", thresholds.max_foreign_cpu_pct),
          "--max-steal-pct",
          fmt::format("{}", thresholds.max_steal_pct),
          "--max-cpu-pressure-pct",
          fmt::format("{}", thresholds.max_cpu_pressure_pct)};
}

std::string job_look_json(const BeforeLaunch& look, const std::vector<std::string>& words) {
  nlohmann::json j = {{"quiet_wait_s", look.quiet_wait_s.value_or(0)},
                      {"quiet_found", look.quiet_found.empty() ? nlohmann::json() : nlohmann::json(look.quiet_found)},
                      {"quiet_where", look.quiet_where},
                      {"words", words}};
  return j.dump();
}

std::optional<JobLook> read_job_look(const std::filesystem::path& file) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) return std::nullopt;
  const UntrustedJson read = read_untrusted_json(file, {.max_bytes = 1u << 20, .max_depth = 4});
  const nlohmann::json& j = read.document;
  if (!read.problem.empty() || !j.is_object()) return std::nullopt;
  const auto wait = j.find("quiet_wait_s");
  const auto found = j.find("quiet_found");
  const auto where = j.find("quiet_where");
  // A look lasts as long as the job allows: never negative, never more than a week.
  if (wait == j.end() || !wait->is_number() || *wait < 0 || *wait > 7 * 24 * 3600.0 || found == j.end() ||
      where == j.end() || !where->is_string()) {
    return std::nullopt;
  }
  BeforeLaunch look;
  look.quiet_wait_s = wait->get<double>();
  if (found->is_string()) {
    look.quiet_found = found->get<std::string>();
    if (look.quiet_found != "quiet" && look.quiet_found != "busy") return std::nullopt;
  } else if (!found->is_null()) {
    return std::nullopt;
  }
  look.quiet_where = where->get<std::string>();
  if (quiet_where_words(look.quiet_where).empty()) return std::nullopt;
  JobLook job_look{look, {}};
  // Its words are shown as they are: a few short lines at most, or none.
  const auto words = j.find("words");
  if (words != j.end() && words->is_array() && words->size() <= 4) {
    for (const auto& word : *words) {
      if (word.is_string() && word.get<std::string>().size() <= 2000) job_look.words.push_back(word.get<std::string>());
    }
  }
  return job_look;
}

}  // namespace mt
