#pragma once
// The campaign a run would have joined but for the program it drives: where an experiment's source
// revision is unknown, the engine binary (or image) joins a campaign's identity
// (commands/experiment_plan.h), so the same plan with another engine is a campaign of its own, and
// `run` says which one it would otherwise have been and what that one ran.
#include <optional>
#include <string>
#include <vector>

#include "store/sqlite_db.h"
#include "store/store.h"

namespace mt {

struct AlikeCampaign {
  std::string id;
  // The engine binaries' hashes (bare metal) and image IDs (containers) its attempts recorded, sorted.
  std::vector<std::string> programs;
};

// The latest campaign other than `campaign` of the same experiment, plan, launcher and source
// revision; nullopt where there is none.
std::optional<AlikeCampaign> latest_alike_campaign(Database& db, const Campaign& campaign);

}  // namespace mt
