#pragma once
// The look for a quiet machine where each trial gets a Slurm allocation of its own (srun outside
// one, or sbatch): its nodes are not known before it starts, so the look runs inside the job, first
// thing, on every node of its allocation (`mtrun look --allocation`), and writes what it did to a
// file in the attempt's directory, which mtrun records with the attempt once the job is done.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "experiment/measurement_rules.h"
#include "run/quiet_machine.h"
#include "store/before_launch.h"

namespace mt {

// The file in the attempt's directory that the job's look writes.
inline constexpr const char* kJobLookFile = "quiet-look.json";

// Whether each trial's job looks for a quiet machine itself: where it gets nodes of its own
// (LookPlace::InJob) and a wait was asked for, when trials run one at a time (beside others no
// trial waits for a quiet machine: the others are running).
bool job_looks_first(const LookPlace& place, double wait_quiet_s, int parallel);

// `mtrun look --allocation --wait S --record FILE` with the campaign's thresholds for a quiet machine.
std::vector<std::string> job_look_command(const std::filesystem::path& mtrun, double wait_s,
                                          const ConditionsThresholds& thresholds, const std::filesystem::path& record);

// What a look did (BeforeLaunch's look fields) and what it said, as one JSON object.
std::string job_look_json(const BeforeLaunch& look, const std::vector<std::string>& words);

struct JobLook {
  BeforeLaunch look;               // its quiet_wait_s, quiet_found and quiet_where
  std::vector<std::string> words;  // what it said ("still busy after 31 s: node c12: …"), if anything
};
// The look `file` records; nothing where the file is missing (the job ended before its look was
// done) or is not what job_look_json writes.
std::optional<JobLook> read_job_look(const std::filesystem::path& file);

}  // namespace mt
