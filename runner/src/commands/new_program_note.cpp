#include "commands/new_program_note.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "store/alike_campaign.h"
#include "store/campaign_lookup.h"
#include "store/trial_json.h"

namespace mt {
namespace {

// "fnv1a64:0123456789ab": the kind and enough of the hash to tell two apart.
std::string short_program(const std::string& program) {
  const std::size_t colon = program.find(':');
  return program.substr(0, colon == std::string::npos ? 12 : colon + 13);
}

}  // namespace

std::string new_program_note(Database& db, const ExperimentPlan& plan) {
  if (plan.program.empty() || has_campaign(db, plan.campaign_id)) return "";
  Campaign campaign;
  campaign.id = plan.campaign_id;
  campaign.experiment = plan.experiment.name;
  campaign.plan_hash = plan.plan_hash;
  campaign.launcher = launcher_to_json(plan.context.launcher);
  campaign.source_revision = plan.source_revision;
  const std::optional<AlikeCampaign> alike = latest_alike_campaign(db, campaign);
  if (!alike) return "";
  const char* what = plan.provenance.bare_metal() ? "engine binary" : "engine image";
  const std::string why = fmt::format(
      "note: a new campaign: the experiment is in no git repository, so its revision (unknown) cannot tell two "
      "builds of the engine apart and the {} does",
      what);
  const auto& ran = alike->programs;
  if (ran.empty() || std::find(ran.begin(), ran.end(), plan.program) != ran.end()) {
    // Begun before the program told such campaigns apart (or it recorded none): its trials stay there.
    return fmt::format(
        "{} ({}); campaign {} of the same plan, begun before mtrun told such campaigns apart, keeps "
        "its trials",
        why, short_program(plan.program), alike->id);
  }
  std::vector<std::string> others;
  for (const std::string& program : ran) others.push_back(short_program(program));
  return fmt::format("{}: this one ({}) is not the one campaign {} of the same plan ran ({})", why,
                     short_program(plan.program), alike->id, fmt::join(others, ", "));
}

}  // namespace mt
