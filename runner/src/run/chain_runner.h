#pragma once
// One attempt of a chain: its stages run in order in one work directory, each launch recorded as a
// stage row with what it expected and what it did, stopping at the first stage that did not do
// what it expected. The attempt's outcome is the chain's verdict.
#include <cstdint>
#include <optional>
#include <string>

#include "launch/stage_command.h"
#include "run/campaign_runner.h"

namespace mt {

struct ChainOutcome {
  // Succeeded when every stage met its expectation; failed naming the first that did not and
  // why; interrupted when the runner was stopped.
  AttemptOutcome outcome;
  // The last result file that says where it ran (its environment): the attempt's provenance.
  std::optional<std::string> provenance_result;
};

// Runs chain `trial` as attempt `attempt` (already begun) in `dirs`; its log (one line per stage)
// goes to `log_file`. Only a database that can no longer be written throws.
ChainOutcome run_chain(Store& store, const CampaignRun& run, std::int64_t attempt, const Trial& trial,
                       const ChainDirs& dirs, const std::filesystem::path& log_file, const std::string& job_name);

}  // namespace mt
